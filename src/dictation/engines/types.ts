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
}

export interface TranscriptSegment {
  startMs: number;
  endMs: number;
  text: string;
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
}

/** Whether an engine can run on this machine, and if not, what to do about it. */
export type EngineAvailability = { available: true } | { available: false; reason: string; hint: string };

/** Sample rate every engine takes: what the audio decoder delivers. */
export { SAMPLE_RATE } from "../audio/rate.ts";
