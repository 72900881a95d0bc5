import { AppError, reasonOf } from "../errors.ts";
import type { AppContext } from "../formats/app-context.ts";
import type { DictationApi } from "../plugins/hook-api.ts";
import { type DictationSource, hookAppContext } from "../plugins/hooks.ts";
import {
  type BeforeTranscribeHook,
  runBeforeTranscribe,
  type TranscribePlan,
} from "../plugins/hooks-audio.ts";
import { isNearSilent, measureLevel, SAMPLE_RATE } from "./audio/index.ts";
import { splitAudio } from "./chunking.ts";
import type { ActiveEngine, EngineOverrides } from "./engine-provider.ts";
import { isEngineId } from "./engines/ids.ts";
import type { EngineId, TranscriptSegment } from "./engines/types.ts";
import { languageTag } from "./language.ts";
import type { RecognitionRequest } from "./request.ts";
import type { Timings } from "./result.ts";
import type { Lane, Scheduler } from "./scheduler.ts";

// Recognition: 16 kHz audio to the engine's text. Plugin beforeTranscribe hooks first, then the
// engine the settings (or a hook) choose, in 30 s windows through the scheduler, the windows'
// segments on one timeline, and the hallucination guard. A whole recording (transcriber.ts) and
// each piece of a live dictation (live/session.ts) are recognised here alike.

/** Which engine and model recognised a dictation (`plugin:<name>` as the model when a plugin answered it). */
export interface EngineRef {
  id: EngineId;
  model: string;
}

/** The settings recognition reads, at each dictation. */
export interface RecognitionLimits {
  /** Longest a transcription may take end to end (transcribe_timeout_seconds). */
  timeoutMs: number;
  /** The `language` setting: what a dictation that names none is in. */
  language: string;
  hookTimeoutMs: number;
  /** The `stt_engine` setting. */
  engine: EngineId;
  /** The model an engine answers with now, its own active one (what hooks see as `modelId`). */
  modelOf(engine: EngineId): string;
}

export interface RecognitionDeps {
  /** The engine the settings select (or `override`), loaded; throws 503 when it cannot be used. */
  engine(override?: EngineId, options?: EngineOverrides): Promise<ActiveEngine>;
  scheduler: Scheduler;
  limits(): RecognitionLimits;
  /**
   * Whether the audio holds speech (the voice-activity detector). Audio without any answers empty
   * text without reaching the engine; absent, only near-silent audio is kept from it.
   */
  hasSpeech?(pcm: Float32Array, signal: AbortSignal): Promise<boolean>;
  /** Plugin `beforeTranscribe` hooks, in order; absent or empty: the audio goes to the engine as is. */
  beforeTranscribe?(): readonly BeforeTranscribeHook[];
  /** Reports a plugin hook's failure (the dictation goes on without its changes). */
  warn?(message: string, fields: Record<string, unknown>): void;
  /** 16-bit WAV of 16 kHz samples, for hooks that read `output.audio`. */
  encodeWav?(pcm: Float32Array): Uint8Array;
  /** WAV bytes a hook set as `output.audio`, decoded to 16 kHz mono. */
  decodeWav?(bytes: Uint8Array): Promise<Float32Array>;
}

/** Who a dictation is for, as plugin hooks see it. */
export interface HookContext {
  source: DictationSource;
  appContext: AppContext | null;
  /** The dictation's `api`, shared by all its hooks: consumed or aborted, no engine runs. */
  dictation: DictationApi;
}

/** Audio to recognise, and how. */
export interface RecogniseInput {
  pcm: Float32Array;
  /** As the decoder measured it; default: the samples' length. */
  durationMs?: number;
  request: RecognitionRequest;
  /**
   * The plugin hooks' view of the dictation: a committed piece runs beforeTranscribe once; a live
   * guess (null) runs none, so a hook's side effects happen once per piece of speech.
   */
  hooks: HookContext | null;
  /** Ask the voice-activity detector first: a recording may hold no speech; a live piece is speech already. */
  detectSpeech?: boolean;
  /**
   * A revisable guess at a live dictation's open piece: it runs in the scheduler's `guess` lane (only
   * while the engine is otherwise idle, stopped as soon as other work arrives), not the interactive one.
   */
  guess?: boolean;
  signal: AbortSignal;
  /** Queue and engine time are added to these. */
  timings: Timings;
}

export interface Recognised {
  text: string;
  language: string;
  segments: TranscriptSegment[];
  engine: EngineRef;
}

/** One piece of a live dictation, 16 kHz mono, under the transcription time limit. */
export interface PieceInput extends Pick<RecogniseInput, "pcm" | "request" | "hooks" | "guess" | "timings"> {
  signal?: AbortSignal;
}

/** What a live dictation asks of recognition (dictation/live/session.ts). */
export interface Recogniser {
  /** One piece with its plugin hooks and the active engine, in the interactive lane; no text pipeline. */
  recognisePiece(input: PieceInput): Promise<Recognised>;
  /** The engine and model a dictation would use now (a live session that heard no speech names them). */
  activeEngine(): Promise<EngineRef>;
  /** Whether the engine has nothing running or waiting (a live partial only fills idle time). */
  isIdle(): boolean;
  /**
   * Whether a piece goes to the engine as it is (no plugin `beforeTranscribe` hook is registered),
   * so that a guess over exactly a piece's audio answers what the committed piece would.
   */
  plainPieces(): boolean;
}

export interface Recognition extends Recogniser {
  /** Recognises `input` (a whole recording: the batch transcriber's step between decoding and the pipeline). */
  recognise(input: RecogniseInput): Promise<Recognised>;
}

/** Below this average level a lone "Thank you." is more likely a hallucination than a reply. */
const quietRmsDb = -40;

/** One engine window: whisper's encoder sees 30 s at a time, so longer audio is chunked. */
export const windowSamples = 30 * SAMPLE_RATE;

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

/**
 * A transcription's time limit over the caller's own signal; `explain` turns the abort the limit
 * causes into the `timeout` error (a caller that went away keeps its own reason).
 */
export function deadline(timeoutMs: number, caller?: AbortSignal) {
  const timeout = AbortSignal.timeout(timeoutMs);
  return {
    signal: caller ? AbortSignal.any([caller, timeout]) : timeout,
    explain(error: unknown): unknown {
      if (!timeout.aborted || caller?.aborted) return error;
      return new AppError("timeout", `Transcription took longer than ${timeoutMs} ms and was stopped.`);
    },
  };
}

const noPlan: TranscribePlan = { answeredBy: null, errors: [] };

const noWav = (): Uint8Array => {
  throw new Error("this host cannot encode WAV");
};
const noDecode = async (): Promise<Float32Array> => {
  throw new Error("this host cannot decode WAV");
};

export function createRecognition(deps: RecognitionDeps): Recognition {
  /** The engine over `pcm` in windows, through the scheduler, then the hallucination guard. */
  async function windows(
    active: ActiveEngine,
    pcm: Float32Array,
    input: Pick<RecogniseInput, "request" | "signal" | "timings" | "guess">,
    language: string,
  ): Promise<Omit<Recognised, "engine">> {
    const { request, timings } = input;
    const chunks = splitAudio(pcm, windowSamples);
    const lane: Lane = input.guess ? "guess" : chunks.length > 1 ? "batch" : "interactive";
    const texts: string[] = [];
    const segments: TranscriptSegment[] = [];
    let detected = language;
    let offsetMs = 0;
    for (const chunk of chunks) {
      const queued = performance.now();
      const result = await deps.scheduler.run({
        lane,
        signal: input.signal,
        execute: async (unitSignal) => {
          const started = performance.now();
          timings.queue += started - queued;
          try {
            return await active.engine.transcribe(chunk, {
              language: language === "auto" ? undefined : language,
              prompt: active.prompt,
              vocabulary: active.vocabulary,
              signal: unitSignal,
              translate: request.translate,
              words: request.words,
              temperature: request.temperature,
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

  /** Plugins may swap the audio, the engine, the model, the language or the vocabulary, or answer it. */
  async function beforeTranscribe(
    input: RecogniseInput,
    hooks: HookContext,
    language: string,
    limits: RecognitionLimits,
  ): Promise<TranscribePlan> {
    const registered = deps.beforeTranscribe?.() ?? [];
    if (registered.length === 0) return noPlan;
    const durationMs = input.durationMs ?? (input.pcm.length / SAMPLE_RATE) * 1000;
    const plan = await runBeforeTranscribe(
      registered,
      {
        pcm: input.pcm,
        sampleRate: SAMPLE_RATE,
        durationMs,
        audioDurationMs: durationMs,
        language,
        appContext: hookAppContext(hooks.appContext),
        providerId: input.request.engine ?? limits.engine,
        modelId: input.request.model ?? limits.modelOf(input.request.engine ?? limits.engine),
        source: hooks.source,
      },
      {
        timeoutMs: limits.hookTimeoutMs,
        dictation: hooks.dictation,
        isEngine: isEngineId,
        language: languageTag,
        encodeWav: deps.encodeWav ?? noWav,
        decodeWav: deps.decodeWav ?? noDecode,
      },
    );
    for (const error of plan.errors) deps.warn?.(error.message, { plugin: error.plugin, hook: error.hook });
    return plan;
  }

  async function recognise(input: RecogniseInput): Promise<Recognised> {
    const limits = deps.limits();
    const { request } = input;
    const requested = request.language ?? limits.language;
    const plan = input.hooks ? await beforeTranscribe(input, input.hooks, requested, limits) : noPlan;
    const pcm = plan.pcm ?? input.pcm;
    const language = plan.language ?? requested;
    const engineId = (plan.engine as EngineId | undefined) ?? request.engine;
    // Consumed or aborted (here or in an earlier piece): nothing will be delivered, so no engine runs.
    if (input.hooks?.dictation.ended) {
      return {
        text: "",
        language,
        segments: [],
        engine: {
          id: engineId ?? limits.engine,
          model: request.model ?? limits.modelOf(engineId ?? limits.engine),
        },
      };
    }
    if (plan.text !== undefined) {
      const engine = { id: engineId ?? limits.engine, model: `plugin:${plan.answeredBy}` };
      return { text: plan.text, language, segments: [], engine };
    }
    // Loading a model (only the first time, or after a settings change) counts as engine time.
    const loading = performance.now();
    const active = await deps.engine(engineId, {
      model: plan.model ?? request.model,
      vocabulary: plan.vocabulary,
      keywords: request.keywords,
      prompt: request.prompt,
    });
    input.timings.engine += performance.now() - loading;
    const engine = { id: active.id, model: active.model };
    // Silence and noise never reach the engine: they are where hallucinations come from.
    if (input.detectSpeech && !(await hasSpeech(pcm, input.signal, input.timings))) {
      return { text: "", language, segments: [], engine };
    }
    return { ...(await windows(active, pcm, input, language)), engine };
  }

  return {
    recognise,
    async recognisePiece(input) {
      const limits = deps.limits();
      const { signal, explain } = deadline(limits.timeoutMs, input.signal);
      try {
        return await recognise({ ...input, signal });
      } catch (error) {
        throw explain(error);
      }
    },
    async activeEngine() {
      const { id, model } = await deps.engine();
      return { id, model };
    },
    isIdle() {
      const { running, queued } = deps.scheduler.stats();
      return running === 0 && queued.interactive === 0 && queued.batch === 0;
    },
    plainPieces: () => (deps.beforeTranscribe?.() ?? []).length === 0,
  };
}
