import type { EngineId } from "./ids.ts";

export type { EngineId } from "./ids.ts";

export interface TranscribeOptions {
  /** ISO 639-1 code ("en", "de"); absent or "auto" lets a multilingual engine detect it. */
  language?: string;
  /** Free-text prompt biasing recognition (whisper's initial prompt); see `buildWhisperPrompt`. */
  prompt?: string;
  /** Vocabulary terms for engines that take words rather than a prompt (sphinx). */
  vocabulary?: readonly string[];
  /** Aborting rejects the call with `signal.reason`. */
  signal?: AbortSignal;
  /** Speech in any language to English text (whisper's translate task, multilingual models only). */
  translate?: boolean;
  /** Time each word as well as each segment, where the engine can. */
  words?: boolean;
  /** The first decoding temperature (0 = greedy); the engine's fallback steps start from it. */
  temperature?: number;
}

/** One recognised word and when it was spoken, in ms from the start of the audio. */
export interface TranscriptWord {
  word: string;
  startMs: number;
  endMs: number;
}

export interface TranscriptSegment {
  startMs: number;
  endMs: number;
  text: string;
  /** The engine's token ids for the segment's text (whisper only). */
  tokens?: number[];
  /** Mean log probability of those tokens (whisper only). */
  avgLogprob?: number;
  /** The words of the segment, when asked for with `words` and the engine times them. */
  words?: TranscriptWord[];
}

export interface TranscriptionResult {
  /** The whole transcript, whitespace-normalised; "" when nothing was recognised. */
  text: string;
  segments: TranscriptSegment[];
  /** The language spoken, as given or as detected. */
  language: string;
}

export interface SpeechEngine {
  readonly id: EngineId;
  /** `pcm`: mono samples at 16 kHz in [-1, 1]. */
  transcribe(pcm: Float32Array, opts?: TranscribeOptions): Promise<TranscriptionResult>;
  /** Releases the model; later calls to `transcribe` reject. Safe to call twice. */
  close(): Promise<void>;
  /** Which native build runs it, where there is a choice (whisper: the CPU level), for the log. */
  readonly build?: string;
  /** What it runs on, where there is a choice (whisper: "CPU", or its Vulkan device), for the log. */
  readonly device?: string;
  /** Why it runs on the CPU though a GPU was looked for (SVC_WHISPER_DEVICE=auto), for the log. */
  readonly deviceNote?: string;
  /**
   * Settles with the reason if the engine stops by itself (whisper's GPU process ended), never after
   * `close()`: the provider then forgets it, and the next dictation loads it again.
   */
  readonly ended?: Promise<Error>;
}

/** Whether an engine can run on this machine, and if not, what to do about it. */
export type EngineAvailability = { available: true } | { available: false; reason: string; hint: string };

/** Sample rate every engine takes: what the audio decoder delivers. */
export { SAMPLE_RATE } from "../audio/index.ts";
