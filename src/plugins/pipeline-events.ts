import type { OutputMode } from "./hooks-output.ts";

/**
 * Freestyle's pipeline events, as plugins' `event` hooks receive them in-process (under
 * `input.event`): the text is there, since plugins are trusted code. The `/api/events` socket
 * never carries them; it keeps to ids and numbers.
 */

/** The stage a `pipelineError` happened in. */
export type PipelineStage = "capture" | "transcribe" | "cleanup" | "transform" | "output";

export type PipelineEvent =
  | { type: "recordingStarted" }
  | { type: "recordingCommitted" }
  | { type: "recordingCancelled" }
  | { type: "transcribed"; text: string; durationInSeconds?: number }
  | { type: "cleaned"; before: string; after: string }
  | { type: "outputDelivered"; text: string; mode: OutputMode }
  | { type: "pipelineError"; stage: PipelineStage; message: string };

/** The hook a plugin ended a dictation in, as the stage a `pipelineError` names. */
export const stageOfHook: Record<string, PipelineStage> = {
  beforeTranscribe: "transcribe",
  afterTranscribe: "transcribe",
  beforeCleanup: "cleanup",
  afterCleanup: "transform",
  beforeOutput: "output",
};
