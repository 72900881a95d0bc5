import { unsupportedAudio } from "./errors.ts";
import type { MediaType } from "./media-type.ts";
import { MAX_SAMPLE_RATE, MIN_SAMPLE_RATE, type PcmLayout, type SampleEncoding } from "./pcm.ts";

interface RawType {
  encoding: SampleEncoding;
  /** Absent: the parameter is required (RFC 3551 types carry their rate). */
  defaultRate?: number;
}

// `audio/pcm` is the de-facto name for little-endian s16 from browsers and SDKs; the RFC 3551
// names (L16, L24, PCMU, PCMA) are network byte order or G.711 as that RFC defines them.
const RAW_TYPES: Record<string, RawType> = {
  "audio/pcm": { encoding: "s16le", defaultRate: 16000 },
  "audio/l16": { encoding: "s16be" },
  "audio/l24": { encoding: "s24be" },
  "audio/pcmu": { encoding: "mulaw", defaultRate: 8000 },
  "audio/basic": { encoding: "mulaw", defaultRate: 8000 },
  "audio/x-mulaw": { encoding: "mulaw", defaultRate: 8000 },
  "audio/pcma": { encoding: "alaw", defaultRate: 8000 },
  "audio/x-alaw": { encoding: "alaw", defaultRate: 8000 },
};

const MAX_RAW_CHANNELS = 255;

/** The layout a raw PCM content type declares, or undefined when the type is not raw PCM. */
export function rawPcmLayout(media: MediaType | undefined): PcmLayout | undefined {
  const raw = media && RAW_TYPES[media.essence];
  if (!media || !raw) return undefined;
  const sampleRate = integerParam(media, "rate", raw.defaultRate, MIN_SAMPLE_RATE, MAX_SAMPLE_RATE);
  const channels = integerParam(media, "channels", 1, 1, MAX_RAW_CHANNELS);
  return { encoding: raw.encoding, sampleRate, channels };
}

function integerParam(
  media: MediaType,
  name: string,
  fallback: number | undefined,
  min: number,
  max: number,
): number {
  const text = media.params[name];
  const example = `${media.essence};rate=16000;channels=1`;
  if (text === undefined) {
    if (fallback !== undefined) return fallback;
    throw unsupportedAudio(`${media.essence} needs a ${name} parameter, for example ${example}`);
  }
  const value = /^\d{1,7}$/.test(text) ? Number(text) : Number.NaN;
  if (value >= min && value <= max) return value;
  throw unsupportedAudio(
    `${media.essence} ${name}=${text} is not accepted; use ${min}–${max}, e.g. ${example}`,
  );
}
