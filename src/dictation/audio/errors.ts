import { AppError } from "../../errors.ts";

/** Every error the decoder throws carries one of these codes. */
export const AUDIO_ERROR_CODES = ["unsupported_audio", "invalid_audio", "audio_too_long"] as const;
export type AudioErrorCode = (typeof AUDIO_ERROR_CODES)[number];

/** Appended to client errors so every message says what to send instead. */
export const ACCEPTED_AUDIO =
  "Send WAV (PCM 8/16/24/32-bit, float 32/64-bit, µ-law/A-law), WebM/Opus, Ogg Opus/Vorbis/FLAC, MP3, " +
  "FLAC, M4A/AAC, or raw PCM as audio/pcm;rate=16000;channels=1 (s16le) or audio/L16;rate=…;channels=… " +
  "(big-endian).";

/** 415: the container or codec is one we do not decode (or could not be recognised at all). */
export const unsupportedAudio = (message: string, details?: unknown) =>
  new AppError("unsupported_audio", `${message}. ${ACCEPTED_AUDIO}`, { details });

/** 422: the format is supported but these bytes are truncated, malformed or hold no samples. */
export const invalidAudio = (message: string, details?: unknown) =>
  new AppError("invalid_audio", message, { details });

/** 413: the audio itself (not the upload size) is longer than the configured limit. */
export const audioTooLong = (durationMs: number, maxDurationMs: number, atLeast = false) =>
  new AppError(
    "audio_too_long",
    `The audio is ${atLeast ? "at least " : ""}${formatSeconds(durationMs)} long; the limit is ` +
      `${formatSeconds(maxDurationMs)}. Send a shorter recording or split it.`,
    { details: { durationMs: Math.round(durationMs), maxDurationMs } },
  );

const formatSeconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 0)} s`;
