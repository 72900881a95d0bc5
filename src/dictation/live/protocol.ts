import * as v from "valibot";
import { type ErrorCode, errorCodes } from "../../error-codes.ts";
import { AppError } from "../../errors.ts";
import { parseAppContext } from "../../formats/app-context.ts";
import { parseReported } from "../../validation.ts";
import { MAX_SAMPLE_RATE, MIN_SAMPLE_RATE, type StreamFormat, unsupportedAudio } from "../audio/index.ts";
import { languageSchema } from "../language.ts";
import type { DictationRequest } from "../request.ts";
import { transcribeResultSchema } from "../result.ts";
import type { LiveSegment } from "./session.ts";

// GET /api/dictate's messages, both directions, as wyoming/events.ts declares Wyoming's: the
// server (http/dictate-socket.ts), `svc dictate --json` and the console's live client
// (web/console/audio/live.ts, by type) read and write these, and the API reference publishes them.

/**
 * The audio a live dictation takes in binary frames: raw PCM (little-endian, interleaved, at
 * `sampleRate`), or a browser's MediaRecorder stream cut wherever it likes (WebM or Ogg with Opus;
 * the stream says its own rate and channels).
 */
export const liveFormats = ["pcm16", "f32", "webm-opus", "ogg-opus"] as const;
type LiveFormat = (typeof liveFormats)[number];

const formats: Record<LiveFormat, (rate: number, channels: number) => StreamFormat> = {
  pcm16: (sampleRate, channels) => ({ encoding: "s16le", sampleRate, channels }),
  f32: (sampleRate, channels) => ({ encoding: "f32le", sampleRate, channels }),
  "webm-opus": () => ({ container: "webm" }),
  "ogg-opus": () => ({ container: "ogg" }),
};

const isRawPcm = (format: LiveFormat) => format === "pcm16" || format === "f32";

/** `start`, once, first: what the audio is, and for which language and app. */
const startMessageSchema = v.object({
  type: v.literal("start"),
  format: v.picklist(liveFormats),
  sampleRate: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(MIN_SAMPLE_RATE),
      v.maxValue(MAX_SAMPLE_RATE),
      v.description("Hz; required for pcm16 and f32, read from the stream for webm-opus and ogg-opus"),
    ),
  ),
  channels: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(32), v.description("interleaved; averaged")),
    1,
  ),
  language: v.optional(languageSchema),
  appContext: v.optional(
    v.pipe(
      v.unknown(),
      v.description(
        'An app name ("Slack") or {"app","title","url"}: picks the format, as x-app-context does',
      ),
    ),
  ),
});

/** What a client sends as text: `start`, then (after its audio in binary frames) `stop` or `cancel`. */
export const clientMessageSchema = v.variant("type", [
  startMessageSchema,
  v.object({ type: v.literal("stop") }),
  v.object({ type: v.literal("cancel") }),
]);
export type ClientMessage = v.InferInput<typeof clientMessageSchema>;

/** A `start` as svc reads it: the audio as its stream decoder takes it, the app context parsed. */
export interface LiveStart {
  audio: StreamFormat;
  request: Pick<DictationRequest, "language" | "appContext">;
}

export type ReadMessage = { type: "start"; start: LiveStart } | { type: "stop" } | { type: "cancel" };

/** Reads one text message; throws invalid_json, invalid_request, unsupported_audio or invalid_app_context. */
export function readClientMessage(text: string): ReadMessage {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AppError("invalid_json", 'A text message must be JSON, e.g. {"type":"stop"}.');
  }
  const parsed = parseReported(clientMessageSchema, json);
  if (!parsed.success) {
    const format = typeof json === "object" && json !== null ? Reflect.get(json, "format") : undefined;
    // A format svc does not stream is its own refusal, as an upload's is (once the rest is valid).
    if (typeof format === "string" && parsed.details.every((issue) => issue.path === "format")) {
      throw unsupportedAudio(`format "${format}" is not streamed; send one of ${liveFormats.join(", ")}`, {
        supported: liveFormats,
      });
    }
    throw new AppError("invalid_request", `Invalid message: ${parsed.lines.join("; ")}`, {
      details: parsed.details,
    });
  }
  const message = parsed.output;
  if (message.type !== "start") return message;
  if (message.sampleRate === undefined && isRawPcm(message.format)) {
    throw new AppError("invalid_request", `A ${message.format} stream needs its sampleRate.`, {
      details: [{ field: "sampleRate", message: "required for raw PCM" }],
    });
  }
  const start: LiveStart = {
    audio: formats[message.format](message.sampleRate ?? 0, message.channels),
    request: { language: message.language, appContext: parseAppContext(message.appContext) },
  };
  return { type: "start", start };
}

const readyMessageSchema = v.object({ type: v.literal("ready") });

/** A revisable guess at the piece being spoken. */
const partialMessageSchema = v.object({ type: v.literal("partial"), text: v.string() });

/** A committed piece, the engine's text (before the pipeline); `start` and `end` in ms from the first sample. */
const segmentMessageSchema = v.object({
  type: v.literal("segment"),
  text: v.string(),
  start: v.number(),
  end: v.number(),
});

/** After stop: the body of POST /api/transcribe; `durationMs` is the wait from stop. */
const finalMessageSchema = v.object({ type: v.literal("final"), ...transcribeResultSchema.entries });

/** Why the dictation ended, before the close; `code` is one of svc's error codes. */
const errorMessageSchema = v.object({
  type: v.literal("error"),
  code: v.picklist(Object.keys(errorCodes) as ErrorCode[]),
  message: v.string(),
});

/** What the server sends: JSON text messages, one per event. */
export const serverMessageSchema = v.variant("type", [
  readyMessageSchema,
  partialMessageSchema,
  segmentMessageSchema,
  finalMessageSchema,
  errorMessageSchema,
]);
export type ServerMessage = v.InferOutput<typeof serverMessageSchema>;
export type SegmentMessage = v.InferOutput<typeof segmentMessageSchema>;
export type FinalMessage = v.InferOutput<typeof finalMessageSchema>;

export const segmentMessage = (segment: LiveSegment): SegmentMessage => ({
  type: "segment",
  text: segment.text,
  start: Math.round(segment.startMs),
  end: Math.round(segment.endMs),
});

export const errorMessage = (error: AppError): ServerMessage => ({
  type: "error",
  code: error.code,
  message: error.message,
});

/** The close code that tells a client why (RFC 6455 §7.4.1). */
export function closeCodeOf(error: AppError): number {
  if (error.code === "busy") return 1013;
  if (error.code === "payload_too_large") return 1009;
  if (error.code === "unsupported_audio") return 1003;
  return error.status >= 500 ? 1011 : 1008;
}
