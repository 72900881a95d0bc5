import { AppError } from "../errors.ts";
import type { AppContext } from "../formats/app-context.ts";
import {
  type BeforeTranscribeHook,
  type BeforeTranscribeOutput,
  runBeforeTranscribe,
} from "../plugins/hooks.ts";
import { isNearSilent, measureLevel } from "./audio/level.ts";
import { SAMPLE_RATE } from "./audio/rate.ts";
import { splitAudio } from "./chunking.ts";
import { isEngineId } from "./engines/ids.ts";
import type { EngineId, SpeechEngine } from "./engines/types.ts";
import { languageTag } from "./language.ts";
import type { Timings, TranscribeResult } from "./result.ts";
import type { Lane, Scheduler } from "./scheduler.ts";

export interface DecodedClip {
  pcm: Float32Array;
  durationMs: number;
}

export interface ActiveEngine {
  engine: SpeechEngine;
  id: EngineId;
  model: string;
  /** Text that biases recognition (whisper's prompt), built from the vocabulary. */
  prompt?: string;
  vocabulary?: readonly string[];
  /** Removes hallucinations, repetition loops and prompt echoes; `quiet` audio gets the stricter list. */
  clean(text: string, quiet: boolean): string;
}

export interface PostProcessed {
  text: string;
  timings: { cleanup: number; dictionary: number; plugins: number };
  format: { id: number; label: string } | null;
  deterministic: string;
}

export interface TranscriberDeps {
  decode(bytes: Uint8Array, contentType: string | undefined, maxDurationMs: number): Promise<DecodedClip>;
  /** The engine the settings select (or `override`), loaded; throws 503 when it cannot be used. */
  engine(
    override?: EngineId,
    options?: { model?: string; vocabulary?: readonly string[] },
  ): Promise<ActiveEngine>;
  scheduler: Scheduler;
  postProcess(input: {
    text: string;
    appContext: AppContext | null;
    language: string | null;
  }): Promise<PostProcessed>;
  record(entry: HistoryEntry): number | null;
  publish(type: "transcription.completed", data: Record<string, unknown>): void;
  limits(): {
    maxAudioMs: number;
    timeoutMs: number;
    language: string;
    hookTimeoutMs: number;
    engine: EngineId;
  };
  /** Plugin `beforeTranscribe` hooks, in order; absent or empty: the audio goes to the engine as is. */
  beforeTranscribe?(): readonly BeforeTranscribeHook[];
  /** Reports a plugin hook's failure (the dictation goes on without its changes). */
  warn?(message: string, fields: Record<string, unknown>): void;
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
}

export interface TranscribeInput {
  audio: Uint8Array;
  contentType?: string;
  appContext?: AppContext | null;
  language?: string;
  skipPostProcess?: boolean;
  /** Use this engine instead of the `stt_engine` setting (the CLI's --engine). */
  engine?: EngineId;
  /** false: do not store the result in history (the CLI's --no-history). */
  record?: boolean;
  signal?: AbortSignal;
}

/** Below this average level a lone "Thank you." is more likely a hallucination than a reply. */
const quietRmsDb = -40;

/** One engine window: whisper's encoder sees 30 s at a time, so longer audio is chunked. */
export const windowSamples = 30 * SAMPLE_RATE;

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

export function createTranscriber(deps: TranscriberDeps) {
  async function recognise(
    active: ActiveEngine,
    pcm: Float32Array,
    language: string,
    signal: AbortSignal,
    timings: Timings,
  ): Promise<{ text: string; language: string }> {
    const chunks = splitAudio(pcm, windowSamples);
    const lane: Lane = chunks.length > 1 ? "batch" : "interactive";
    const texts: string[] = [];
    let detected = language;
    for (const chunk of chunks) {
      const queued = performance.now();
      const result = await deps.scheduler.run({
        lane,
        signal,
        execute: async (unitSignal) => {
          const started = performance.now();
          timings.queue += started - queued;
          try {
            return await active.engine.transcribe(chunk, {
              language: language === "auto" ? undefined : language,
              prompt: active.prompt,
              vocabulary: active.vocabulary,
              signal: unitSignal,
            });
          } finally {
            timings.engine += performance.now() - started;
          }
        },
      });
      texts.push(result.text);
      detected = result.language || detected;
    }
    const quiet = measureLevel(pcm).rmsDb < quietRmsDb;
    return { text: active.clean(texts.join(" ").trim(), quiet), language: detected };
  }

  async function beforeTranscribe(
    clip: DecodedClip,
    language: string,
    appContext: AppContext | null,
    timeoutMs: number,
  ): Promise<BeforeTranscribeOutput & { consumedBy: string | null }> {
    const hooks = deps.beforeTranscribe?.() ?? [];
    if (hooks.length === 0) return { consumedBy: null };
    const plan = await runBeforeTranscribe(
      hooks,
      { pcm: clip.pcm, sampleRate: SAMPLE_RATE, durationMs: clip.durationMs, language, appContext },
      { timeoutMs, isEngine: isEngineId, language: languageTag },
    );
    for (const error of plan.errors) deps.warn?.(error.message, { plugin: error.plugin, hook: error.hook });
    return plan;
  }

  async function transcribe(input: TranscribeInput): Promise<TranscribeResult> {
    const started = performance.now();
    const limits = deps.limits();
    const timeout = AbortSignal.timeout(limits.timeoutMs);
    const signal = input.signal ? AbortSignal.any([input.signal, timeout]) : timeout;
    const timings: Timings = { decode: 0, queue: 0, engine: 0, cleanup: 0, dictionary: 0, plugins: 0 };
    const clip = await deps.decode(input.audio, input.contentType, limits.maxAudioMs);
    timings.decode = performance.now() - started;
    let language = input.language ?? limits.language;
    // Plugins may swap the audio, the engine or the language for this dictation, or answer it.
    const plan = await beforeTranscribe(clip, language, input.appContext ?? null, limits.hookTimeoutMs);
    const pcm = plan.pcm ?? clip.pcm;
    if (plan.language !== undefined) language = plan.language;
    const engineId = (plan.engine as EngineId | undefined) ?? input.engine;
    let raw = "";
    let active: Pick<ActiveEngine, "id" | "model">;
    try {
      if (plan.consume && plan.text !== undefined) {
        raw = plan.text;
        active = { id: engineId ?? limits.engine, model: `plugin:${plan.consumedBy}` };
      } else {
        // Loading a model (only the first time, or after a settings change) counts as engine time.
        const loading = performance.now();
        const engine = await deps.engine(engineId, { model: plan.model, vocabulary: plan.vocabulary });
        timings.engine += performance.now() - loading;
        active = engine;
        // Silence never reaches the engine: it is where hallucinations come from.
        if (!isNearSilent(pcm))
          ({ text: raw, language } = await recognise(engine, pcm, language, signal, timings));
      }
    } catch (error) {
      if (timeout.aborted) {
        throw new AppError(
          "timeout",
          `Transcription took longer than ${limits.timeoutMs} ms and was stopped.`,
        );
      }
      throw error;
    }
    const appContext = input.appContext ?? null;
    const processed =
      input.skipPostProcess || raw === ""
        ? { text: raw, deterministic: raw, timings: { cleanup: 0, dictionary: 0, plugins: 0 }, format: null }
        : await deps.postProcess({ text: raw, appContext, language: knownLanguage(language) });
    Object.assign(timings, processed.timings);
    const durationMs = performance.now() - started;
    const entry: HistoryEntry = {
      raw,
      text: processed.text,
      deterministic: processed.deterministic,
      language,
      engine: active.id,
      model: active.model,
      audioDurationMs: Math.round(clip.durationMs),
      processingMs: Math.round(durationMs),
      appContext,
      format: processed.format,
    };
    const historyId = input.record === false ? null : deps.record(entry);
    const result: TranscribeResult = {
      text: processed.text,
      raw,
      language,
      audioDurationMs: Math.round(clip.durationMs),
      durationMs: round(durationMs),
      engine: active.id,
      model: active.model,
      historyId,
      format: processed.format,
      timings: roundTimings(timings),
    };
    deps.publish("transcription.completed", {
      historyId,
      engine: active.id,
      model: active.model,
      audioDurationMs: result.audioDurationMs,
      durationMs: result.durationMs,
    });
    return result;
  }

  return { transcribe };
}

export type Transcriber = ReturnType<typeof createTranscriber>;
