import type { AppContext } from "../formats/app-context.ts";
import type { HistorySource } from "../history/items.ts";
import type { DictationApi, DictationOutcome } from "../plugins/hook-api.ts";
import type { OutputMode } from "../plugins/hooks-output.ts";
import { abortReport, type PipelineEvent } from "../plugins/pipeline-events.ts";
import type { EngineId } from "./engines/types.ts";
import type { EngineRef } from "./recognise.ts";
import type { CompletionRequest } from "./request.ts";
import type { Timings, Transcription } from "./result.ts";

// Completion: what every dictation ends with, whole recording or live session alike: the text
// pipeline over the engine's text, one history entry and the `transcription.completed` event.

export interface PostProcessed extends DictationOutcome {
  text: string;
  timings: { cleanup: number; dictionary: number; plugins: number };
  format: { id: number; label: string } | null;
  deterministic: string;
  mode: OutputMode;
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
    dictation: DictationApi;
    engine: { id: string; model: string };
  }): Promise<PostProcessed>;
  /** A new dictation's hook `api` (with `api.llm` when an LLM is configured). */
  newDictation(): DictationApi;
  record(entry: HistoryEntry): number | null;
  publish(type: "transcription.completed" | "pipeline.error", data: Record<string, unknown>): void;
  /** Hands a pipeline event to the plugins' `event` hooks, in-process. */
  notify?(event: PipelineEvent): void;
}

/** A recognised dictation on its way to the text pipeline and history. */
export interface CompleteInput {
  raw: string;
  /** What it was recognised as being in: the request's language, or the one the engine detected. */
  language: string;
  engine: EngineRef;
  audioDurationMs: number;
  /** `performance.now()` when the wait the answer reports as durationMs began. */
  started: number;
  timings: Timings;
  request: CompletionRequest;
  /** The dictation's hook `api`, which its beforeTranscribe hooks saw; default a new one. */
  dictation?: DictationApi;
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

/** What became of the text when the pipeline did not run (skipped, nothing said, or ended early). */
function unprocessed(raw: string, dictation: DictationApi): PostProcessed {
  const outcome = dictation.outcome();
  const ended = outcome.disposition !== "deliver";
  return {
    text: ended ? "" : raw,
    deterministic: raw,
    timings: { cleanup: 0, dictionary: 0, plugins: 0 },
    format: null,
    disposition: outcome.disposition,
    reason: outcome.reason,
    consumedBy: outcome.consumedBy,
    mode: ended ? "none" : "paste",
  };
}

export function createCompletion(deps: CompletionDeps): Completion {
  /** The plugins' view of how it ended; the bus hears of an abort too, without its text. */
  function announce(
    raw: string,
    processed: PostProcessed,
    audioDurationMs: number,
    outcome: DictationOutcome,
  ): void {
    const { disposition } = processed;
    const aborted = abortReport(outcome);
    if (aborted) {
      deps.notify?.(aborted.event);
      deps.publish("pipeline.error", aborted.bus);
      return;
    }
    if (disposition === "suppressed") {
      deps.notify?.({ type: "outputDelivered", text: "", mode: "none" });
      return;
    }
    if (raw === "") return;
    deps.notify?.({ type: "transcribed", text: raw, durationInSeconds: audioDurationMs / 1000 });
    if (processed.text !== raw) deps.notify?.({ type: "cleaned", before: raw, after: processed.text });
    deps.notify?.({ type: "outputDelivered", text: processed.text, mode: processed.mode });
  }

  return {
    async complete(input) {
      const { raw, language, engine, timings, request } = input;
      const source = request.source ?? "api";
      const appContext = request.appContext ?? null;
      const dictation = input.dictation ?? deps.newDictation();
      const processed =
        request.skipPostProcess || raw === "" || dictation.ended
          ? unprocessed(raw, dictation)
          : await deps.postProcess({
              text: raw,
              appContext,
              language: knownLanguage(language),
              source,
              dictation,
              engine,
            });
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
        keyName: request.keyName ?? null,
      };
      // Nothing said (silence, only fillers, a start and a stop) or nothing delivered (a plugin
      // consumed it: a voice command): there is nothing to remember.
      const kept =
        request.record !== false && processed.disposition === "deliver" && processed.text.trim() !== "";
      const historyId = kept ? deps.record(entry) : null;
      announce(raw, processed, audioDurationMs, dictation.outcome());
      deps.publish("transcription.completed", {
        historyId,
        engine: engine.id,
        model: engine.model,
        audioDurationMs,
        durationMs: round(durationMs),
        disposition: processed.disposition,
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
        disposition: processed.disposition,
        reason: processed.reason,
        consumedBy: processed.consumedBy,
        mode: processed.mode,
      };
    },
  };
}
