import * as v from "valibot";
import type { HistoryRow, NewHistoryRow } from "../db/history-row.ts";
import { type AppContext, appContextLimits, appContextSchema } from "../formats/app-context.ts";
import { countWords } from "./words.ts";

/** Where a dictation came from, as history records it. */
export type HistorySource = "api" | "openai" | "live" | "cli" | "wyoming" | "desktop";

/** A history entry as the API shows it. */
export const historyItemSchema = v.object({
  id: v.number(),
  rawText: v.string(),
  /** The deterministic cleanup text, when a later step (LLM, dictionary, plugins) changed it. */
  cleanedText: v.nullable(v.string()),
  finalText: v.string(),
  wordCount: v.number(),
  language: v.nullable(v.string()),
  engine: v.string(),
  model: v.nullable(v.string()),
  audioDurationMs: v.number(),
  processingMs: v.number(),
  appContext: v.nullable(appContextSchema),
  formatId: v.nullable(v.number()),
  formatLabel: v.nullable(v.string()),
  /**
   * Where it came from: `api` (/api/transcribe and the console), `openai` (/v1), `live`
   * (/api/dictate), `cli`, `wyoming` (the Wyoming listener, Home Assistant's Assist), `desktop`
   * (the Freestyle desktop app's /stream, SVC_FREESTYLE_DESKTOP=1).
   */
  source: v.string(),
  /** The name of the key it was made with (SVC_AUTH keys); null when made without a key. */
  keyName: v.nullable(v.string()),
  createdAt: v.string(),
});
export type HistoryItem = v.InferOutput<typeof historyItemSchema>;

/** What the dictation pipeline records for one transcription. */
export interface NewHistoryEntry {
  rawText: string;
  /** The deterministic cleanup result; dropped when it equals `finalText`. */
  cleanedText?: string | null;
  finalText: string;
  language?: string | null;
  engine: string;
  model?: string | null;
  audioDurationMs: number;
  processingMs: number;
  appContext?: AppContext | null;
  formatId?: number | null;
  formatLabel?: string | null;
  /** Where it came from; default `api`. */
  source?: HistorySource;
  /** The key it was made with; none for a trusted client. */
  keyName?: string | null;
  /** Defaults to now. Never stored earlier than the newest entry's, so ids follow time. */
  createdAt?: Date;
}

// App context comes from a request header: keep only the known fields, bounded as they were
// when accepted (a longer value never reaches here through the API).
function boundedContext(context: AppContext | null | undefined): string | null {
  if (!context) return null;
  const kept: AppContext = {};
  for (const field of ["app", "title", "url"] as const) {
    const value = context[field];
    if (typeof value === "string" && value.trim() !== "")
      kept[field] = value.trim().slice(0, appContextLimits[field]);
  }
  return Object.keys(kept).length > 0 ? JSON.stringify(kept) : null;
}

const whole = (n: number) => (Number.isFinite(n) ? Math.max(0, Math.round(n)) : 0);

export function toHistoryRow(entry: NewHistoryEntry, now: Date): NewHistoryRow {
  const cleaned = entry.cleanedText ?? null;
  return {
    raw_text: entry.rawText,
    cleaned_text: cleaned === entry.finalText ? null : cleaned,
    final_text: entry.finalText,
    word_count: countWords(entry.finalText),
    language: entry.language ?? null,
    engine: entry.engine,
    model: entry.model ?? null,
    audio_duration_ms: whole(entry.audioDurationMs),
    processing_ms: whole(entry.processingMs),
    app_context: boundedContext(entry.appContext),
    format_id: entry.formatId ?? null,
    format_label: entry.formatLabel ?? null,
    source: entry.source ?? "api",
    key_name: entry.keyName ?? null,
    created_at: (entry.createdAt ?? now).toISOString(),
  };
}

function parseContext(json: string | null): AppContext | null {
  if (json === null) return null;
  try {
    const result = v.safeParse(appContextSchema, JSON.parse(json));
    return result.success ? result.output : null;
  } catch {
    return null;
  }
}

export function toHistoryItem(row: HistoryRow): HistoryItem {
  return {
    id: row.id,
    rawText: row.raw_text,
    cleanedText: row.cleaned_text,
    finalText: row.final_text,
    wordCount: row.word_count,
    language: row.language,
    engine: row.engine,
    model: row.model,
    audioDurationMs: row.audio_duration_ms,
    processingMs: row.processing_ms,
    appContext: parseContext(row.app_context),
    formatId: row.format_id,
    formatLabel: row.format_label,
    source: row.source,
    keyName: row.key_name,
    createdAt: row.created_at,
  };
}
