import * as v from "valibot";
import { MAX_SAMPLE_RATE, MIN_SAMPLE_RATE, type PcmLayout } from "../dictation/audio/index.ts";
import { languageTag } from "../dictation/language.ts";
import { parseOrThrow } from "../validation.ts";

// The speech-to-text events svc reads and writes, as OHF-Voice/wyoming defines them (asr.py,
// audio.py, info.py, error.py, ping.py). Fields svc does not use (timestamp, context,
// vad_sensitivity) are accepted and ignored, as the Python classes ignore unknown ones.

/** Raw PCM as a Wyoming client describes it: `width` bytes per sample, interleaved channels. */
export const audioFormatSchema = v.object({
  rate: v.pipe(
    v.number("rate must be a number"),
    v.integer("rate must be a whole number of hertz"),
    v.minValue(MIN_SAMPLE_RATE, `rate must be at least ${MIN_SAMPLE_RATE} Hz`),
    v.maxValue(MAX_SAMPLE_RATE, `rate must be at most ${MAX_SAMPLE_RATE} Hz`),
  ),
  width: v.picklist([1, 2, 3, 4], "width must be 1, 2, 3 or 4 bytes per sample"),
  channels: v.pipe(
    v.number("channels must be a number"),
    v.integer("channels must be a whole number"),
    v.minValue(1, "channels must be at least 1"),
    v.maxValue(32, "channels must be at most 32"),
  ),
});
export type AudioFormat = v.InferOutput<typeof audioFormatSchema>;

/** `audio-start` and `audio-chunk` data: the format (audio.py `AudioFormat`). */
export const readAudioFormat = (data: Record<string, unknown>): AudioFormat =>
  parseOrThrow(audioFormatSchema, data, "invalid_request", "data");

// Wyoming audio is raw little-endian PCM whose samples are signed integers of `width` bytes, as
// Python's audioop reads them (the library converts with audioop.lin2lin and ratecv): 8-bit
// samples are signed too, unlike 8-bit WAV.
const encodings = { 1: "s8", 2: "s16le", 3: "s24le", 4: "s32le" } as const;

/** The layout svc's stream decoder reads a Wyoming client's chunks in. */
export const pcmLayoutOf = (format: AudioFormat): PcmLayout => ({
  encoding: encodings[format.width],
  sampleRate: format.rate,
  channels: format.channels,
});

export interface TranscribeRequest {
  /** A language svc can use; an unknown or malformed one leaves the `language` setting in charge. */
  language?: string;
  /** The model the client asks for by the name `info` gave it. */
  name?: string;
}

/** `transcribe {name?, language?, context?}`: every field optional, as asr.py's `Transcribe`. */
export function readTranscribe(data: Record<string, unknown>): TranscribeRequest {
  const request: TranscribeRequest = {};
  if (typeof data.language === "string") request.language = languageTag(data.language);
  if (typeof data.name === "string" && data.name !== "") request.name = data.name;
  return request;
}

export type OutgoingEvent = { type: string; data?: Record<string, unknown> };

/** `transcript {text, language?}`: the final text, which every client reads (asr.py `Transcript`). */
export function transcriptEvent(text: string, language: string | null): OutgoingEvent {
  return { type: "transcript", data: language ? { text, language } : { text } };
}

/** The streaming extension (wyoming 1.7): start, a chunk per committed piece, stop after `transcript`. */
export function transcriptStartEvent(language: string | null): OutgoingEvent {
  return { type: "transcript-start", data: language ? { language } : {} };
}

export const transcriptChunkEvent = (text: string): OutgoingEvent => ({
  type: "transcript-chunk",
  data: { text },
});

export const transcriptStopEvent: OutgoingEvent = { type: "transcript-stop" };

/** `error {text, code?}` (error.py); svc's code is one of its error codes (README). */
export const errorEvent = (code: string, text: string): OutgoingEvent => ({
  type: "error",
  data: { text, code },
});

/**
 * The most characters of a ping's text a pong echoes: enough for any token a client matches its
 * pongs by, while a client that never reads cannot make svc hold a copy of every payload it sends.
 */
export const maxPongText = 1024;

/** `pong {text}` answers `ping {text}` (ping.py), the text cut to `maxPongText`. */
export function pongEvent(data: Record<string, unknown>): OutgoingEvent {
  if (typeof data.text !== "string") return { type: "pong", data: {} };
  let text = data.text.slice(0, maxPongText);
  // Never half a surrogate pair: it would not encode as UTF-8.
  if (/[\ud800-\udbff]$/.test(text)) text = text.slice(0, -1);
  return { type: "pong", data: { text } };
}
