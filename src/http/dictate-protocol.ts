import * as v from "valibot";
import { openCompressedStream } from "../dictation/audio/compressed.ts";
import { invalidAudio, unsupportedAudio } from "../dictation/audio/errors.ts";
import {
  frameBytes,
  MAX_SAMPLE_RATE,
  MIN_SAMPLE_RATE,
  type PcmLayout,
  pcmToMono,
} from "../dictation/audio/pcm.ts";
import { concat, createResampler } from "../dictation/audio/resample.ts";
import { languageSchema } from "../dictation/language.ts";
import { AppError } from "../errors.ts";
import { parseAppContext } from "../formats/app-context.ts";
import { parseOrThrow } from "../validation.ts";

/**
 * The audio a live dictation takes in binary frames: raw PCM (little-endian, interleaved, at
 * `sampleRate`), or a browser's MediaRecorder stream cut wherever it likes (WebM or Ogg with Opus;
 * the stream says its own rate and channels).
 */
export const liveFormats = ["pcm16", "f32", "webm-opus", "ogg-opus"] as const;
export type LiveFormat = (typeof liveFormats)[number];

const encodings = { pcm16: "s16le", f32: "f32le" } as const;
const containers = {
  "webm-opus": { decoder: "webm", format: "WebM" },
  "ogg-opus": { decoder: "opus", format: "Ogg Opus" },
} as const;

const startSchema = v.object({
  type: v.literal("start"),
  format: v.string(),
  sampleRate: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(MIN_SAMPLE_RATE), v.maxValue(MAX_SAMPLE_RATE)),
  ),
  channels: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(32)), 1),
  language: v.optional(languageSchema),
  appContext: v.optional(v.unknown()),
});

/** What a client sends as text: start, then (after its audio) stop or cancel. */
export const clientMessageSchema = v.variant("type", [
  startSchema,
  v.object({ type: v.literal("stop") }),
  v.object({ type: v.literal("cancel") }),
]);

export type StartMessage = Omit<v.InferOutput<typeof startSchema>, "format" | "appContext"> & {
  format: LiveFormat;
  appContext: ReturnType<typeof parseAppContext>;
};
export type ClientMessage = StartMessage | { type: "stop" } | { type: "cancel" };

const isLiveFormat = (format: string): format is LiveFormat =>
  (liveFormats as readonly string[]).includes(format);

/** Reads one text message; throws invalid_json, invalid_request, unsupported_audio or invalid_app_context. */
export function readClientMessage(text: string): ClientMessage {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AppError("invalid_json", 'A text message must be JSON, e.g. {"type":"stop"}.');
  }
  const message = parseOrThrow(clientMessageSchema, json, "invalid_request", "message");
  if (message.type !== "start") return message;
  if (!isLiveFormat(message.format)) {
    throw unsupportedAudio(
      `format "${message.format}" is not streamed; send one of ${liveFormats.join(", ")}`,
      {
        supported: liveFormats,
      },
    );
  }
  if (message.sampleRate === undefined && message.format in encodings) {
    throw new AppError("invalid_request", `A ${message.format} stream needs its sampleRate.`, {
      details: [{ field: "sampleRate", message: "required for raw PCM" }],
    });
  }
  return { ...message, format: message.format, appContext: parseAppContext(message.appContext) };
}

/** Turns a live dictation's binary frames into 16 kHz mono, in the order they arrived. */
export interface FrameDecoder {
  /** Reads the frame before returning, so the caller may reuse its bytes. */
  decode(bytes: Uint8Array): Promise<Float32Array>;
  /** What is left at the end of the stream (the resampler's last samples, a codec's last frame). */
  flush(): Promise<Float32Array>;
  /** Frees the codec of a stream that will not finish. */
  close(): void;
}

/**
 * Binary frames to 16 kHz mono: PCM channels averaged and the rate converted as in the batch path;
 * WebM or Ogg decoded as MediaRecorder's chunks come, whole or not. `maxDurationMs` stops a codec
 * from expanding a small frame into more audio than a dictation may hold.
 */
export function createFrameDecoder(
  start: Pick<StartMessage, "format" | "sampleRate" | "channels">,
  maxDurationMs: number,
): FrameDecoder {
  const { format } = start;
  if (format === "pcm16" || format === "f32")
    return pcmDecoder(format, start.sampleRate ?? 0, start.channels);
  const opened = openCompressedStream({ ...containers[format], maxDurationMs, whole: false });
  // Each step waits for the one before: the codec takes its bytes strictly in order.
  let order: Promise<unknown> = opened.catch(() => {});
  const next = (step: (stream: Awaited<typeof opened>) => Promise<Float32Array[]>) => {
    const result = order.then(() => opened.then(step)).then(concat);
    order = result.catch(() => {});
    return result;
  };
  return {
    decode(bytes) {
      const copy = bytes.slice();
      return next((stream) => stream.push(copy));
    },
    flush: () => next((stream) => stream.end()),
    close() {
      opened.then((stream) => stream.free()).catch(() => {});
    },
  };
}

function pcmDecoder(format: keyof typeof encodings, sampleRate: number, channels: number): FrameDecoder {
  const layout: PcmLayout = { encoding: encodings[format], channels, sampleRate };
  const bytesPerFrame = frameBytes(layout);
  const resampler = createResampler(sampleRate);
  return {
    async decode(bytes) {
      if (bytes.length % bytesPerFrame !== 0) {
        throw invalidAudio(
          `a ${format} frame of ${channels} channel(s) holds whole samples: ${bytes.length} bytes is not a multiple of ${bytesPerFrame}`,
        );
      }
      return resampler.push(pcmToMono(bytes, layout).samples);
    },
    flush: async () => resampler.flush(),
    close() {},
  };
}
