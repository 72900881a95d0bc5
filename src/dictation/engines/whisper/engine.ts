import { statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { AppError } from "../../../errors.ts";
import { autoDevice } from "../device-choice.ts";
import type { TranscribeOptions, TranscriptionResult, TranscriptSegment, TranscriptWord } from "../types.ts";
import { SAMPLE_RATE } from "../types.ts";
import type { NativeWhisperModel, WhisperAddon } from "./binding.ts";
import { describeGpuDevice, type GpuDevice } from "./device.ts";
import type { WhisperEngine, WhisperEngineOptions } from "./engine-options.ts";
import { validateWhisperModel } from "./ggml-model.ts";
import { createGpuWhisperEngine } from "./gpu-engine.ts";
import { audioCtxFor, type DecodeSettings, resolveLanguage, whisperParams } from "./params.ts";
import { ggmlGpu, placeWhisper, type WhisperPlacement } from "./placement.ts";

export type { WhisperEngine, WhisperEngineOptions } from "./engine-options.ts";

/** whisper.cpp returns nothing for input under 1 s, so shorter clips are padded with silence. */
const MIN_SAMPLES = Math.round(SAMPLE_RATE * 1.1);

interface NativeToken {
  text: string;
  id: number;
  p: number;
  /** Present with token_timestamps, in ms. */
  from?: number;
  to?: number;
}

interface NativeSegment {
  from: number;
  to: number;
  text: string;
  lang?: string;
  tokens?: NativeToken[];
}

function checkedInt(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new AppError("invalid_engine_option", `${name} must be an integer from ${min} to ${max}.`);
  }
  return value;
}

/**
 * One native run. svc's build of the binding (scripts/whisper-addon.mjs) stops the run when the
 * `abort` cell turns non-zero, so an aborted transcription gives the cores back within
 * milliseconds; a build without that patch (macOS, Windows) ignores the cell and finishes the run.
 */
function runNative(
  addon: WhisperAddon,
  model: NativeWhisperModel,
  pcm: Float32Array,
  params: Record<string, unknown>,
  signal: AbortSignal | undefined,
) {
  return new Promise<NativeSegment[]>((resolve, reject) => {
    const abort = new Int32Array(new SharedArrayBuffer(4));
    const stop = () => Atomics.store(abort, 0, 1);
    signal?.addEventListener("abort", stop, { once: true });
    const finish = (result: unknown) => {
      // The cell stays referenced until here: the native run reads it until it ends.
      signal?.removeEventListener("abort", stop);
      // A stopped run answers an error, or no segments when it stopped between two windows.
      if (signal && Atomics.load(abort, 0) === 1) reject(signal.reason);
      else if (Array.isArray(result)) resolve(result as NativeSegment[]);
      else reject(new AppError("engine_failed", `whisper.cpp failed: ${String(result)}`, { cause: result }));
    };
    addon.transcribe(model.handle, pcm, { ...params, abort }, finish, () => {});
  });
}

/** Settles with `work`, or rejects with the signal's reason as soon as it aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Whisper's text tokens come before its special ones (end of text, timestamps, language tags). */
const isTextToken = (token: NativeToken, endOfText: number) =>
  token.id < endOfText && !/^\[_|^<\|/.test(token.text);

/**
 * Joins a segment's timed tokens into words: a token that starts with a space starts a word.
 * whisper.cpp's token times are estimates; a word is kept inside its segment's span.
 */
export function wordsOf(
  tokens: readonly NativeToken[],
  span: { from: number; to: number },
): TranscriptWord[] {
  const clamp = (ms: number) => Math.min(span.to, Math.max(span.from, ms));
  const words: TranscriptWord[] = [];
  for (const token of tokens) {
    if (token.from === undefined || token.to === undefined) continue;
    const last = words.at(-1);
    if (last && !/^\s/.test(token.text)) {
      last.word += token.text;
      last.endMs = Math.max(last.endMs, clamp(token.to));
    } else {
      const startMs = clamp(token.from);
      words.push({ word: token.text.trim(), startMs, endMs: Math.max(startMs, clamp(token.to)) });
    }
  }
  return words.filter((word) => word.word !== "");
}

function toSegment(segment: NativeSegment, endOfText: number, withWords: boolean): TranscriptSegment {
  const tokens = (segment.tokens ?? []).filter((token) => isTextToken(token, endOfText));
  const mapped: TranscriptSegment = { startMs: segment.from, endMs: segment.to, text: segment.text.trim() };
  if (tokens.length > 0) {
    mapped.tokens = tokens.map((token) => token.id);
    mapped.avgLogprob =
      tokens.reduce((sum, token) => sum + Math.log(Math.max(token.p, 1e-10)), 0) / tokens.length;
  }
  if (withWords) mapped.words = wordsOf(tokens, segment);
  return mapped;
}

function toResult(
  segments: NativeSegment[],
  language: string,
  endOfText: number,
  withWords: boolean,
): TranscriptionResult {
  const mapped = segments.map((segment) => toSegment(segment, endOfText, withWords));
  const text = segments
    .map((s) => s.text)
    .join("")
    .replace(/\s+/g, " ")
    .trim();
  const detected = language === "auto" ? (segments[0]?.lang ?? "und") : language;
  return { text, segments: mapped, language: detected };
}

/** Transcriptions one loaded model runs at once: on a GPU two, so one's CPU part overlaps the other's. */
export const whisperLanes = (onGpu: boolean): number => (onGpu ? 2 : 1);

/**
 * Loads a whisper.cpp model (validated first) and keeps it loaded until `close()`: on the CPU in
 * this process, on a GPU in whisper's GPU process (gpu-engine.ts), which `close()` ends so the GPU's
 * memory and the driver's go back with it.
 */
export async function createWhisperEngine(options: WhisperEngineOptions): Promise<WhisperEngine> {
  const { addon, placement } = await placeWhisper(
    options.device ?? autoDevice,
    statSync(options.modelPath).size,
  );
  if (placement.device || !addon) return createGpuWhisperEngine(options, placement);
  return openWhisperEngine(addon, placement, options);
}

/**
 * The engine on `addon` in this process. Work runs on native threads, never on the event loop. On
 * the CPU one transcription runs at a time per model: concurrent runs would each allocate a decoder
 * state and fight over the same cores. On a GPU two run, each with its own state, and take the GPU
 * in turn. An abort rejects at once and stops the native run (see `runNative`) before the next
 * queued call starts.
 */
export async function openWhisperEngine(
  addon: WhisperAddon,
  placement: WhisperPlacement,
  options: WhisperEngineOptions,
): Promise<WhisperEngine> {
  const onGpu = placement.device !== undefined;
  const cores = availableParallelism();
  const settings: DecodeSettings = {
    threads: checkedInt("threads", options.threads ?? (onGpu ? Math.min(4, cores) : cores), 1, 256),
    beamSize: checkedInt("beamSize", options.beamSize ?? 1, 1, 16),
    temperatureIncrement: options.temperatureIncrement ?? 0.2,
    maxTokensPerSegment: checkedInt("maxTokensPerSegment", options.maxTokensPerSegment ?? 0, 0, 448),
  };
  const scaling = options.audioCtxScaling ?? true;
  const info = validateWhisperModel(options.modelPath);
  const model = await loadModel(addon, options.modelPath, placement.device);
  // Each lane runs its transcriptions one after another; a new one joins the lanes in turn.
  const lanes: Promise<unknown>[] = Array.from({ length: whisperLanes(onGpu) }, () => Promise.resolve());
  let turn = 0;
  let closed = false;
  // whisper.cpp's end-of-text token: every id below it is text (multilingual vocabularies add one).
  const endOfText = info.multilingual ? 50257 : 50256;

  async function transcribe(pcm: Float32Array, opts: TranscribeOptions = {}): Promise<TranscriptionResult> {
    if (closed) throw new AppError("engine_closed", "The whisper engine has been closed.");
    opts.signal?.throwIfAborted();
    const language = resolveLanguage(opts.language, info.multilingual);
    if (pcm.length === 0) return { text: "", segments: [], language: language === "auto" ? "und" : language };
    const input = pcm.length >= MIN_SAMPLES ? pcm : padded(pcm);
    const audioCtx = scaling ? audioCtxFor(input.length) : 0;
    if (opts.translate && !info.multilingual) {
      throw new AppError(
        "translation_unsupported",
        `This ${info.size} model understands English only, so it cannot translate. Use a multilingual model (tiny, base, small) to translate.`,
      );
    }
    const params = whisperParams(settings, {
      language,
      prompt: opts.prompt,
      audioCtx,
      translate: opts.translate,
      words: opts.words,
      temperature: opts.temperature,
    });
    const lane = turn++ % lanes.length;
    const run = (lanes[lane] as Promise<unknown>).then(() => {
      opts.signal?.throwIfAborted();
      return runNative(addon, model, input, params, opts.signal);
    });
    lanes[lane] = run.catch(() => {});
    const segments = await untilAborted(run, opts.signal);
    return toResult(segments, language, endOfText, opts.words === true);
  }

  const { build, device, fallback } = placement;
  return {
    id: "whisper",
    build: `${build.name} (${build.label})`,
    device: device ? describeGpuDevice(device) : "CPU",
    deviceNote: fallback,
    model: info,
    threads: settings.threads,
    transcribe,
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all(lanes);
      await model.free();
    },
  };
}

/**
 * Loads the model, on the GPU where the placement has one. whisper.cpp quietly runs on the CPU when
 * the GPU's backend does not start, so a GPU load is checked and refused rather than slow.
 */
async function loadModel(
  addon: WhisperAddon,
  path: string,
  device: GpuDevice | undefined,
): Promise<NativeWhisperModel> {
  const gpu = device !== undefined;
  let model: NativeWhisperModel;
  try {
    model = await addon.WhisperModel.load(path, gpu);
  } catch (error) {
    if (!gpu) throw error;
    throw new AppError(
      "engine_unavailable",
      `whisper.cpp could not load the model on the GPU (out of its memory?): ${String(error)}`,
      {
        details: { engine: "whisper" },
        cause: error,
      },
    );
  }
  if (gpu && !ggmlGpu(addon)) {
    await model.free();
    throw new AppError(
      "engine_unavailable",
      `whisper.cpp's GPU backend did not start on ${describeGpuDevice(device)}.`,
      {
        details: { engine: "whisper" },
      },
    );
  }
  return model;
}

function padded(pcm: Float32Array): Float32Array {
  const out = new Float32Array(MIN_SAMPLES);
  out.set(pcm);
  return out;
}
