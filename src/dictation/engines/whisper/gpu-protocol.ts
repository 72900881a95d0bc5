// The IPC channel between the server (gpu-engine.ts) and whisper's GPU process (gpu-process.ts).

import type { ErrorCode } from "../../../error-codes.ts";
import { AppError, isAppError } from "../../../errors.ts";
import type { TranscribeOptions, TranscriptionResult } from "../types.ts";
import type { WhisperEngineOptions } from "./engine-options.ts";
import type { WhisperModelInfo } from "./ggml-model.ts";
import type { WhisperPlacement } from "./placement.ts";

export type GpuRequest =
  | { type: "open"; options: WhisperEngineOptions; placement: WhisperPlacement }
  | { type: "transcribe"; id: number; pcm: Float32Array; options: Omit<TranscribeOptions, "signal"> }
  | { type: "abort"; id: number }
  | { type: "close" };

export type GpuReply =
  | { type: "ready"; model: WhisperModelInfo; threads: number }
  | { type: "open-failed"; error: WireError }
  | { type: "done"; id: number; result: TranscriptionResult }
  | { type: "failed"; id: number; error: WireError }
  | { type: "closed" };

/** An error as it crosses the channel: an AppError keeps its code and details. */
export interface WireError {
  code?: ErrorCode;
  message: string;
  details?: unknown;
}

export function toWire(error: unknown): WireError {
  if (isAppError(error)) return { code: error.code, message: error.message, details: error.details };
  return { message: error instanceof Error ? error.message : String(error) };
}

export const fromWire = (error: WireError) =>
  new AppError(error.code ?? "engine_failed", error.message, { details: error.details });

/**
 * Samples as they should cross the channel: a view into a longer recording (chunking.ts's 30 s
 * windows are) would be cloned with its whole buffer, so it is copied first; an array that is its
 * whole buffer goes as it is.
 */
export function ownBuffer(pcm: Float32Array): Float32Array {
  return pcm.byteOffset === 0 && pcm.byteLength === pcm.buffer.byteLength ? pcm : pcm.slice();
}
