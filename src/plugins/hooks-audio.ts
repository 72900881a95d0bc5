import type { DictationApi } from "./hook-api.ts";
import {
  type DictationSource,
  eachHook,
  failure,
  guarded,
  type HookAppContext,
  type HookError,
  type HookRun,
  isStringArray,
} from "./hooks.ts";

/**
 * What a `beforeTranscribe` hook sees: the decoded audio (mono, 16 kHz) and the request. A whole
 * recording is one call; a live dictation (`live`, `wyoming`, `svc dictate`) calls once per
 * committed piece, the speech between two pauses, and never for its partial guesses.
 */
export interface BeforeTranscribeInput {
  readonly pcm: Float32Array;
  readonly sampleRate: number;
  readonly durationMs: number;
  /** Freestyle's name for `durationMs`. */
  readonly audioDurationMs: number;
  /** The language asked for ("auto" when the engine should detect it). */
  readonly language: string;
  readonly appContext: Readonly<HookAppContext> | null;
  /** The engine that will run unless a hook picks another (an `stt_engine` value). */
  readonly providerId: string;
  /** Its model (an installed model's name). */
  readonly modelId: string;
  /** The door the dictation came in by. */
  readonly source: DictationSource;
  readonly signal: AbortSignal;
}

/**
 * What a `beforeTranscribe` hook may change for this one dictation, in svc's names (`pcm`,
 * `engine`, `model`, `vocabulary`) or Freestyle's (`audio`, `providerId`, `modelId`, `bias`).
 */
export interface BeforeTranscribeOutput {
  /** Replacement audio (mono, 16 kHz, samples in [-1, 1]), e.g. trimmed or filtered. */
  pcm?: Float32Array;
  /**
   * The audio as 16-bit mono WAV bytes: encoded when first read (svc keeps PCM otherwise); set
   * to WAV bytes to replace the audio.
   */
  audio?: Uint8Array;
  /** Another engine (an `stt_engine` value) for this dictation. */
  engine?: string;
  /** Freestyle's name for `engine`; starts as the engine that would run. */
  providerId?: string;
  /** Another language (an ISO 639 code, or "auto"). */
  language?: string;
  /** Another model of the engine (an installed model's name, in place of `stt_model`). */
  model?: string;
  /** Freestyle's name for `model`; starts as the model that would run. */
  modelId?: string;
  /** The terms that bias recognition of this dictation, in place of the stored vocabulary. */
  vocabulary?: string[];
  /** Freestyle's name for `vocabulary`. */
  bias?: string[];
  /** The transcript: no speech engine runs, and the text goes on through the pipeline. */
  text?: string;
  /** @deprecated Setting `text` is enough; to deliver nothing, call `api.control.consume()`. */
  consume?: boolean;
}

export interface BeforeTranscribeHook {
  pluginName: string;
  run: HookRun<BeforeTranscribeInput, BeforeTranscribeOutput>;
}

/** The changes every hook made together, in svc's names. */
export interface TranscribePlan {
  pcm?: Float32Array;
  engine?: string;
  language?: string;
  model?: string;
  vocabulary?: string[];
  /** A plugin's transcript: no engine runs. */
  text?: string;
  /** The plugin that supplied `text`. */
  answeredBy: string | null;
  errors: HookError[];
}

export interface BeforeTranscribeOptions {
  timeoutMs: number;
  dictation: DictationApi;
  isEngine(value: string): boolean;
  /** The language tag as svc stores it, or undefined when the value is not one. */
  language(value: string): string | undefined;
  encodeWav(pcm: Float32Array): Uint8Array;
  /** WAV bytes a hook set as `output.audio`, as 16 kHz mono samples. */
  decodeWav(bytes: Uint8Array): Promise<Float32Array>;
}

/** A fresh output: Freestyle's fields start as the current plan; `audio` is WAV on demand. */
function outputFor(
  pcm: Float32Array,
  providerId: string,
  modelId: string,
  encode: (pcm: Float32Array) => Uint8Array,
) {
  let wav: Uint8Array | undefined;
  let replaced: Uint8Array | undefined;
  const output: BeforeTranscribeOutput = { providerId, modelId };
  Object.defineProperty(output, "audio", {
    enumerable: true,
    get: () => {
      wav ??= encode(pcm);
      return replaced ?? wav;
    },
    set: (value: unknown) => {
      if (!(value instanceof Uint8Array))
        throw new TypeError("output.audio must be a Uint8Array of WAV bytes");
      replaced = value;
    },
  });
  return { output, replacedAudio: () => replaced };
}

/** Checks one hook's output and merges it into `plan`; throws what is wrong with it. */
async function merge(
  plan: TranscribePlan,
  output: BeforeTranscribeOutput,
  replaced: Uint8Array | undefined,
  start: { providerId: string; modelId: string },
  options: BeforeTranscribeOptions,
): Promise<void> {
  const { pcm, language, vocabulary, bias, text } = output;
  const engine = output.engine ?? (output.providerId !== start.providerId ? output.providerId : undefined);
  const model = output.model ?? (output.modelId !== start.modelId ? output.modelId : undefined);
  if (pcm !== undefined && !(pcm instanceof Float32Array))
    throw new Error("output.pcm must be a Float32Array");
  const engineField = output.engine !== undefined ? "engine" : "providerId";
  if (engine !== undefined && (typeof engine !== "string" || !options.isEngine(engine)))
    throw new Error(`output.${engineField} "${String(engine)}" is not an engine`);
  const tag = typeof language === "string" ? options.language(language) : undefined;
  if (language !== undefined && tag === undefined)
    throw new Error(`output.language ${JSON.stringify(language)} is not "auto" or an ISO 639 code`);
  if (model !== undefined && typeof model !== "string") throw new Error("output.model must be a string");
  const terms = vocabulary ?? bias;
  if (terms !== undefined && !isStringArray(terms))
    throw new Error(`output.${vocabulary !== undefined ? "vocabulary" : "bias"} must be an array of strings`);
  if (text !== undefined && typeof text !== "string") throw new Error("output.text must be a string");
  if (output.consume === true && text === undefined) throw new Error("output.consume needs output.text");
  const samples = pcm ?? (replaced ? await options.decodeWav(replaced) : undefined);
  const changes = { pcm: samples, engine, language: tag, model, vocabulary: terms, text };
  for (const [key, value] of Object.entries(changes))
    if (value !== undefined) Object.assign(plan, { [key]: value });
}

/**
 * Runs `beforeTranscribe` hooks in order, each on the audio the ones before left, under the time
 * limit. A hook whose output is malformed or that fails is reported and its changes dropped; one
 * that answers with `text` stops the chain; one that consumes or aborts ends the dictation.
 */
export async function runBeforeTranscribe(
  hooks: readonly BeforeTranscribeHook[],
  input: Omit<BeforeTranscribeInput, "signal">,
  options: BeforeTranscribeOptions,
): Promise<TranscribePlan> {
  const plan: TranscribePlan = { answeredBy: null, errors: [] };
  await eachHook("beforeTranscribe", hooks, options.dictation, async (hook) => {
    const pcm = plan.pcm ?? input.pcm;
    const start = { providerId: plan.engine ?? input.providerId, modelId: plan.model ?? input.modelId };
    const { output, replacedAudio } = outputFor(pcm, start.providerId, start.modelId, options.encodeWav);
    try {
      const current = { ...input, ...start, pcm, language: plan.language ?? input.language };
      await guarded(hook.run, current, output, options.timeoutMs, options.dictation.api);
      await merge(plan, output, replacedAudio(), start, options);
      if (plan.text !== undefined) plan.answeredBy = hook.pluginName;
    } catch (error) {
      plan.errors.push(failure(hook.pluginName, "beforeTranscribe", error));
    }
    return plan.answeredBy === null ? undefined : "stop";
  });
  return plan;
}
