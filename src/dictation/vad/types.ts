import { SAMPLE_RATE } from "../audio/index.ts";

/** Silero's window at 16 kHz: the detector scores audio 512 samples (32 ms) at a time. */
export const FRAME_SAMPLES = 512;
export const FRAME_MS = (FRAME_SAMPLES / SAMPLE_RATE) * 1000;

/** A stretch of speech on the stream's timeline, in milliseconds from its first sample. */
export interface SpeechRegion {
  startMs: number;
  endMs: number;
}

export type DetectorKind = "silero" | "energy";

/** Scores one stream's frames; keeps that stream's state (Silero's RNN state, the noise floor). */
export interface FrameScorer {
  /** The probability that this frame of {@link FRAME_SAMPLES} samples holds speech, 0 to 1. */
  score(frame: Float32Array): Promise<number>;
  /** Forgets the stream's state (Silero keeps it in its worker); the scorer is not used again. */
  release?(): void;
}

/** A loaded detector: one per process, a scorer per stream. */
export interface FrameModel {
  kind: DetectorKind;
  scorer(): FrameScorer;
  /** Gives back what the model holds (Silero: its worker and WebAssembly memory). */
  close?(): Promise<void>;
}
