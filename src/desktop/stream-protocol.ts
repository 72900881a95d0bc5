import * as v from "valibot";
import { AppError } from "../errors.ts";
import { parseReported } from "../validation.ts";

// The Freestyle desktop app's `/stream` messages, both directions, as its renderer (Streamer, 0.7.x
// and 0.8.x) speaks them: the server speaks first (`config`), the socket carries one recording
// after another, and the audio is always 16 kHz mono PCM16 in binary frames.

/** Where the user dictates: the app's JSON string ({app, title?, windowTitle?, url?}), or null. */
const contextSchema = v.pipe(
  v.nullable(v.union([v.string(), v.record(v.string(), v.unknown())])),
  v.description(
    'JSON {"app","windowTitle"|"title","url"} as a string (what the app sends), an object, or null',
  ),
);

/** What the app sends as text: `context` at any time, `start`, then binary frames, `commit` or `cancel`. */
export const streamClientMessageSchema = v.variant("type", [
  v.object({ type: v.literal("context"), context: v.optional(contextSchema) }),
  v.object({ type: v.literal("start"), context: v.optional(contextSchema) }),
  v.object({
    type: v.literal("commit"),
    audioDurationMs: v.optional(v.number()),
    context: v.optional(contextSchema),
  }),
  v.object({ type: v.literal("cancel") }),
]);
export type StreamClientMessage = v.InferOutput<typeof streamClientMessageSchema>;

/** What svc sends: `config` once on open, then per recording `session.ready`, `partial`s, `final`; or `error`. */
export const streamServerMessageSchema = v.variant("type", [
  v.object({
    type: v.literal("config"),
    model: v.string(),
    streaming: v.literal(true),
    sessionTransport: v.literal(true),
    providerCategory: v.literal("local"),
  }),
  v.object({ type: v.literal("session.ready"), model: v.string() }),
  v.object({ type: v.literal("partial"), text: v.string() }),
  v.object({
    type: v.literal("final"),
    text: v.pipe(v.string(), v.description('the finished text; "" when there is nothing to deliver')),
  }),
  v.object({ type: v.literal("error"), code: v.optional(v.string()), message: v.string() }),
]);
export type StreamServerMessage = v.InferOutput<typeof streamServerMessageSchema>;

/** Reads one text message; throws invalid_json or invalid_request. */
export function readStreamMessage(text: string): StreamClientMessage {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AppError("invalid_json", 'A text message must be JSON, e.g. {"type":"commit"}.');
  }
  const parsed = parseReported(streamClientMessageSchema, json);
  if (!parsed.success) {
    throw new AppError("invalid_request", `Invalid message: ${parsed.lines.join("; ")}`, {
      details: parsed.details,
    });
  }
  return parsed.output;
}
