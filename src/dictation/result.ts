import * as v from "valibot";
import { engineIds } from "./engines/ids.ts";
import type { TranscriptSegment } from "./engines/types.ts";

/**
 * What one dictation answers (POST /api/transcribe, svc transcribe --json): the schema is the
 * type, so the API reference and the code cannot describe two different things.
 */
export const timingSchema = v.object({
  decode: v.number(),
  queue: v.number(),
  engine: v.number(),
  cleanup: v.number(),
  dictionary: v.number(),
  plugins: v.number(),
});

export const transcribeResultSchema = v.object({
  text: v.string(),
  raw: v.string(),
  language: v.string(),
  audioDurationMs: v.number(),
  durationMs: v.number(),
  engine: v.picklist(engineIds),
  model: v.string(),
  historyId: v.nullable(v.number()),
  format: v.nullable(v.object({ id: v.number(), label: v.string() })),
  timings: timingSchema,
  /** `deliver`; `suppressed` (a plugin consumed it, or chose mode none) or `aborted`: `text` is empty. */
  disposition: v.picklist(["deliver", "suppressed", "aborted"]),
  /** The reason the plugin gave; null when delivered. */
  reason: v.nullable(v.string()),
  /** The plugin that consumed, suppressed or aborted it; null when delivered. */
  consumedBy: v.nullable(v.string()),
  /** How to deliver the text: paste (type it), clipboard, or none. */
  mode: v.picklist(["paste", "clipboard", "none"]),
});

export type Timings = v.InferOutput<typeof timingSchema>;

/** Timings that have counted nothing yet, for a dictation (or a piece, or a guess) to add to. */
export const noTimings = (): Timings => ({
  decode: 0,
  queue: 0,
  engine: 0,
  cleanup: 0,
  dictionary: 0,
  plugins: 0,
});
export type TranscribeResult = v.InferOutput<typeof transcribeResultSchema>;

/** A transcription, with the engine's timed segments when `detail` was asked for. */
export type Transcription = TranscribeResult & { segments?: TranscriptSegment[] };
