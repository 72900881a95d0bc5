import { AppError, reasonOf } from "../errors.ts";
import type { AppContext } from "../formats/app-context.ts";
import type { HistorySource } from "../history/items.ts";
import {
  type BeforeTranscribeHook,
  type BeforeTranscribeOutput,
  runBeforeTranscribe,
} from "../plugins/hooks.ts";
import { isNearSilent, measureLevel } from "./audio/level.ts";
import { SAMPLE_RATE } from "./audio/rate.ts";
import { splitAudio } from "./chunking.ts";
import { isEngineId } from "./engines/ids.ts";
import type { EngineId, SpeechEngine, TranscriptSegment } from "./engines/types.ts";
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
    options?: { model?: string; vocabulary?: readonly string[]; prompt?: string },
  ): Promise<ActiveEngine>;
  scheduler: Scheduler;
  postProcess(input: {
    text: string;
    appContext: AppContext | null;
    language: string | null;
  }): Promise<PostProcessed>;
  record(entry: HistoryEntry): number | null;
  /** The dictionary alone, for the text of timed segments (the whole text takes the pipeline). */
  dictionary(text: string): string;
  publish(type: "transcription.completed", data: Record<string, unknown>): void;
  limits(): {
    maxAudioMs: number;
    timeoutMs: number;
    language: string;
    hookTimeoutMs: number;
    engine: EngineId;
  };
  /**
   * Whether the audio holds speech (the voice-activity detector). Audio without any answers empty
   * text without reaching the engine; absent, only near-silent audio is kept from it.
   */
  hasSpeech?(pcm: Float32Array, signal: AbortSignal): Promise<boolean>;
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
  source: HistorySource;
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
  /** An installed model for this dictation instead of the `stt_model` setting. */
  model?: string;
  /** The caller's prompt, combined with the vocabulary within the engine's prompt budget. */
  prompt?: string;
  /** To English, with a multilingual model (the translate task). */
  translate?: boolean;
  /** Time words too (`detail` segments carry them). */
  words?: boolean;
  temperature?: number;
  /** Answer the engine's timed segments too (the OpenAI API's verbose_json, srt and vtt). */
  detail?: boolean;
  /** What history records as the dictation's origin; default `api`. */
  source?: HistorySource;
}

/** A transcription, with the engine's timed segments when `detail` was asked for. */
export type Transcription = TranscribeResult & { segments?: TranscriptSegment[] };

/** One piece of a live dictation, 16 kHz mono. */
export interface PieceInput {
  pcm: Float32Array;
  /** Default: the `language` setting. */
  language?: string;
  /** An installed model instead of the `stt_model` setting. */
  model?: string;
  /** The text said before this piece, combined with the vocabulary within the engine's budget. */
  prompt?: string;
  signal?: AbortSignal;
  /** Queue and engine time are added to these. */
  timings: Timings;
}

export interface RecognisedPiece {
  text: string;
  language: string;
  segments: TranscriptSegment[];
  engine: Pick<ActiveEngine, "id" | "model">;
}

/** A recognised dictation on its way to the text pipeline and history. */
export interface CompleteInput {
  raw: string;
  language: string;
  engine: Pick<ActiveEngine, "id" | "model">;
  audioDurationMs: number;
  /** `performance.now()` when the wait the answer reports as durationMs began. */
  started: number;
  timings: Timings;
  appContext: AppContext | null;
  skipPostProcess?: boolean;
  record?: boolean;
  source?: HistorySource;
}

/** What the engine is asked besides the audio. */
interface Recognition {
  language: string;
  translate?: boolean;
  words?: boolean;
  temperature?: number;
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

/** A chunk's segment on the whole clip's timeline. */
function shifted(segment: TranscriptSegment, offsetMs: number): TranscriptSegment {
  if (offsetMs === 0) return segment;
  const shift = (ms: number) => Math.round(ms + offsetMs);
  const moved = { ...segment, startMs: shift(segment.startMs), endMs: shift(segment.endMs) };
  if (segment.words) {
    moved.words = segment.words.map((word) => ({
      ...word,
      startMs: shift(word.startMs),
      endMs: shift(word.endMs),
    }));
  }
  return moved;
}

export function createTranscriber(deps: TranscriberDeps) {
  async function recognise(
    active: ActiveEngine,
    pcm: Float32Array,
    ask: Recognition,
    signal: AbortSignal,
    timings: Timings,
  ): Promise<{ text: string; language: string; segments: TranscriptSegment[] }> {
    const { language } = ask;
    const chunks = splitAudio(pcm, windowSamples);
    const lane: Lane = chunks.length > 1 ? "batch" : "interactive";
    const texts: string[] = [];
    const segments: TranscriptSegment[] = [];
    let detected = language;
    let offsetMs = 0;
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
              translate: ask.translate,
              words: ask.words,
              temperature: ask.temperature,
            });
          } finally {
            timings.engine += performance.now() - started;
          }
        },
      });
      texts.push(result.text);
      detected = result.language || detected;
      for (const segment of result.segments) segments.push(shifted(segment, offsetMs));
      offsetMs += (chunk.length / SAMPLE_RATE) * 1000;
    }
    const quiet = measureLevel(pcm).rmsDb < quietRmsDb;
    const text = active.clean(texts.join(" ").trim(), quiet);
    // A transcript the cleaner dropped (a hallucination) has no segments either.
    return { text, language: detected, segments: text === "" ? [] : segments };
  }

  /** A detector that fails lets the audio through: a dictation is worth more than the time saved. */
  async function hasSpeech(pcm: Float32Array, signal: AbortSignal, timings: Timings): Promise<boolean> {
    if (isNearSilent(pcm)) return false;
    if (!deps.hasSpeech) return true;
    const started = performance.now();
    try {
      return await deps.hasSpeech(pcm, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      deps.warn?.("voice activity detection failed; the audio goes to the engine as is", {
        reason: reasonOf(error),
      });
      return true;
    } finally {
      // Deciding that there is speech to recognise is the engine stage's first step.
      timings.engine += performance.now() - started;
    }
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

  /** The text pipeline, history and the completion event: what every dictation ends with. */
  async function complete(input: CompleteInput): Promise<Transcription> {
    const { raw, language, engine, timings, appContext } = input;
    const processed =
      input.skipPostProcess || raw === ""
        ? { text: raw, deterministic: raw, timings: { cleanup: 0, dictionary: 0, plugins: 0 }, format: null }
        : await deps.postProcess({ text: raw, appContext, language: knownLanguage(language) });
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
      source: input.source ?? "api",
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
  }

  /**
   * One piece of a live dictation with the active engine, in the interactive lane: no plugin hooks,
   * no text pipeline, no history (the session ends with {@link complete} over the whole text).
   */
  async function recognisePiece(input: PieceInput): Promise<RecognisedPiece> {
    const limits = deps.limits();
    const timeout = AbortSignal.timeout(limits.timeoutMs);
    const signal = input.signal ? AbortSignal.any([input.signal, timeout]) : timeout;
    const loading = performance.now();
    const engine = await deps.engine(undefined, { prompt: input.prompt, model: input.model });
    input.timings.engine += performance.now() - loading;
    const ask = { language: input.language ?? limits.language };
    try {
      const result = await recognise(engine, input.pcm, ask, signal, input.timings);
      return { ...result, engine: { id: engine.id, model: engine.model } };
    } catch (error) {
      if (timeout.aborted && !input.signal?.aborted) {
        throw new AppError(
          "timeout",
          `Transcription took longer than ${limits.timeoutMs} ms and was stopped.`,
        );
      }
      throw error;
    }
  }

  async function transcribe(input: TranscribeInput): Promise<Transcription> {
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
    let segments: TranscriptSegment[] = [];
    let active: Pick<ActiveEngine, "id" | "model">;
    try {
      if (plan.consume && plan.text !== undefined) {
        raw = plan.text;
        active = { id: engineId ?? limits.engine, model: `plugin:${plan.consumedBy}` };
      } else {
        // Loading a model (only the first time, or after a settings change) counts as engine time.
        const loading = performance.now();
        const engine = await deps.engine(engineId, {
          model: plan.model ?? input.model,
          vocabulary: plan.vocabulary,
          prompt: input.prompt,
        });
        timings.engine += performance.now() - loading;
        active = engine;
        // Silence and noise never reach the engine: they are where hallucinations come from.
        if (await hasSpeech(pcm, signal, timings)) {
          const ask = {
            language,
            translate: input.translate,
            words: input.words,
            temperature: input.temperature,
          };
          ({ text: raw, language, segments } = await recognise(engine, pcm, ask, signal, timings));
        }
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
    const result = await complete({
      raw,
      language,
      engine: active,
      audioDurationMs: clip.durationMs,
      started,
      timings,
      appContext: input.appContext ?? null,
      skipPostProcess: input.skipPostProcess,
      record: input.record,
      source: input.source,
    });
    if (input.detail) {
      const withDictionary = !input.skipPostProcess;
      result.segments = segments.map((segment) =>
        withDictionary ? { ...segment, text: deps.dictionary(segment.text) } : segment,
      );
    }
    return result;
  }

  /** The engine and model a dictation would use now (a live session that heard no speech names them). */
  async function activeEngine(): Promise<Pick<ActiveEngine, "id" | "model">> {
    const { id, model } = await deps.engine();
    return { id, model };
  }

  /** Whether the engine has nothing running or waiting (a live partial only fills idle time). */
  const isIdle = (): boolean => {
    const { running, queued } = deps.scheduler.stats();
    return running === 0 && queued.interactive === 0 && queued.batch === 0;
  };

  return { transcribe, recognisePiece, complete, activeEngine, isIdle };
}

export type Transcriber = ReturnType<typeof createTranscriber>;
