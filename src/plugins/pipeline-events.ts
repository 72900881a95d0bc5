import type { DictationOutcome } from "./hook-api.ts";
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

/**
 * An aborted dictation's `pipelineError` for the plugins (with the plugin's reason) and what the
 * bus may carry of it (the stage and the plugin, never the reason's text); null when not aborted.
 */
export function abortReport(outcome: DictationOutcome) {
  if (outcome.disposition !== "aborted") return null;
  const stage = stageOfHook[outcome.hook ?? ""] ?? "transform";
  const message = outcome.reason ?? `aborted by plugin "${outcome.consumedBy}"`;
  return {
    event: { type: "pipelineError", stage, message } satisfies PipelineEvent,
    bus: { stage, plugin: outcome.consumedBy },
  };
}
