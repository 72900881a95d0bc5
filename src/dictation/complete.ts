import type { AppContext } from "../formats/app-context.ts";
import type { HistorySource } from "../history/items.ts";
import type { EngineId } from "./engines/types.ts";
import type { EngineRef } from "./recognise.ts";
import type { Timings, Transcription } from "./result.ts";

// Completion: what every dictation ends with, whole recording or live session alike: the text
// pipeline over the engine's text, one history entry and the `transcription.completed` event.

export interface PostProcessed {
  text: string;
  timings: { cleanup: number; dictionary: number; plugins: number };
  format: { id: number; label: string } | null;
  deterministic: string;
}

export interface HistoryEntry {
  raw: string;
  text: string;
  deterministic: string;
  language: string;
  engine: EngineId;
  model: string;
  audioDurationMs: number;
  processingMs: number;
  appContext: AppContext | null;
  format: { id: number; label: string } | null;
  source: HistorySource;
  keyName: string | null;
}

export interface CompletionDeps {
  /** The text pipeline (cleanup, dictionary, the plugins' text hooks, which see `source`). */
  postProcess(input: {
    text: string;
    appContext: AppContext | null;
    language: string | null;
    source: HistorySource;
  }): Promise<PostProcessed>;
  record(entry: HistoryEntry): number | null;
  publish(type: "transcription.completed", data: Record<string, unknown>): void;
}

/** A recognised dictation on its way to the text pipeline and history. */
export interface CompleteInput {
  raw: string;
  language: string;
  engine: EngineRef;
  audioDurationMs: number;
  /** `performance.now()` when the wait the answer reports as durationMs began. */
  started: number;
  timings: Timings;
  appContext: AppContext | null;
  skipPostProcess?: boolean;
  record?: boolean;
  /** Where it came from (history's column, the hooks' `source`); default `api`. */
  source?: HistorySource;
  /** The name of the key the client used (history records it); none for a trusted client. */
  keyName?: string | null;
}

export interface Completion {
  /** The text pipeline, history and the completion event: what every dictation ends with. */
  complete(input: CompleteInput): Promise<Transcription>;
}

/** "auto" (not detected) and "und" (undetermined) tell the text pipeline nothing. */
const knownLanguage = (language: string) => (language === "auto" || language === "und" ? null : language);

const round = (ms: number) => Math.round(ms * 10) / 10;

function roundTimings(t: Timings): Timings {
  return {
    decode: round(t.decode),
    queue: round(t.queue),
    engine: round(t.engine),
    cleanup: round(t.cleanup),
    dictionary: round(t.dictionary),
    plugins: round(t.plugins),
  };
}

export function createCompletion(deps: CompletionDeps): Completion {
  return {
    async complete(input) {
      const { raw, language, engine, timings, appContext } = input;
      const source = input.source ?? "api";
      const processed =
        input.skipPostProcess || raw === ""
          ? {
              text: raw,
              deterministic: raw,
              timings: { cleanup: 0, dictionary: 0, plugins: 0 },
              format: null,
            }
          : await deps.postProcess({ text: raw, appContext, language: knownLanguage(language), source });
      Object.assign(timings, processed.timings);
      const durationMs = performance.now() - input.started;
      const audioDurationMs = Math.round(input.audioDurationMs);
      const entry: HistoryEntry = {
        raw,
        text: processed.text,
        deterministic: processed.deterministic,
        language,
        engine: engine.id,
        model: engine.model,
        audioDurationMs,
        processingMs: Math.round(durationMs),
        appContext,
        format: processed.format,
        source,
        keyName: input.keyName ?? null,
      };
      // Nothing said (silence, only fillers, a start and a stop): there is nothing to remember.
      const historyId = input.record === false || processed.text.trim() === "" ? null : deps.record(entry);
      deps.publish("transcription.completed", {
        historyId,
        engine: engine.id,
        model: engine.model,
        audioDurationMs,
        durationMs: round(durationMs),
      });
      return {
        text: processed.text,
        raw,
        language,
        audioDurationMs,
        durationMs: round(durationMs),
        engine: engine.id,
        model: engine.model,
        historyId,
        format: processed.format,
        timings: roundTimings(timings),
      };
    },
  };
}
