import * as v from "valibot";
import { invalidAudio, unsupportedAudio } from "../dictation/audio/errors.ts";
import {
  frameBytes,
  MAX_SAMPLE_RATE,
  MIN_SAMPLE_RATE,
  type PcmLayout,
  pcmToMono,
} from "../dictation/audio/pcm.ts";
import { createResampler } from "../dictation/audio/resample.ts";
import { languageSchema } from "../dictation/language.ts";
import { AppError } from "../errors.ts";
import { parseAppContext } from "../formats/app-context.ts";
import { parseOrThrow } from "../validation.ts";

/** The audio a live dictation takes in binary frames: little-endian, interleaved. */
export const liveFormats = ["pcm16", "f32"] as const;
export type LiveFormat = (typeof liveFormats)[number];

const encodings = { pcm16: "s16le", f32: "f32le" } as const;

const startSchema = v.object({
  type: v.literal("start"),
  format: v.string(),
  sampleRate: v.pipe(v.number(), v.integer(), v.minValue(MIN_SAMPLE_RATE), v.maxValue(MAX_SAMPLE_RATE)),
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
  return { ...message, format: message.format, appContext: parseAppContext(message.appContext) };
}

/** Binary frames to 16 kHz mono: the channels averaged, the rate converted as in the batch path. */
export function createFrameDecoder(start: Pick<StartMessage, "format" | "sampleRate" | "channels">) {
  const layout: PcmLayout = {
    encoding: encodings[start.format],
    channels: start.channels,
    sampleRate: start.sampleRate,
  };
  const bytesPerFrame = frameBytes(layout);
  const resampler = createResampler(start.sampleRate);
  return {
    decode(bytes: Uint8Array): Float32Array {
      if (bytes.length % bytesPerFrame !== 0) {
        throw invalidAudio(
          `a ${start.format} frame of ${start.channels} channel(s) holds whole samples: ${bytes.length} bytes is not a multiple of ${bytesPerFrame}`,
        );
      }
      return resampler.push(pcmToMono(bytes, layout).samples);
    },
    /** The resampler's last samples, at the end of the stream. */
    flush: (): Float32Array => resampler.flush(),
  };
}
