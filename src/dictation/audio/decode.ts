import { audioTooLong, invalidAudio, unsupportedAudio } from "./errors.ts";
import { scanFlac } from "./flac-scan.ts";
import { declaredFormat, type MediaType, OPAQUE_TYPES, parseMediaType } from "./media-type.ts";
import { inspectMp4 } from "./mp4-guard.ts";
import { decodeOffLoop } from "./off-loop.ts";
import { frameBytes, type PcmLayout, pcmToMono } from "./pcm.ts";
import { SAMPLE_RATE } from "./rate.ts";
import { rawPcmLayout } from "./raw-pcm.ts";
import { resample } from "./resample.ts";
import { type DecoderName, sniffAudio } from "./sniff.ts";
import { parseWav } from "./wav.ts";

/** What every speech engine receives: 16 kHz mono Float32 in [-1, 1]. */
export interface DecodedAudio {
  pcm: Float32Array;
  sampleRate: typeof SAMPLE_RATE;
  /** From the samples actually decoded, never from a header. */
  durationMs: number;
  source: { format: string; sampleRate: number; channels: number };
}

export interface DecodeLimits {
  maxDurationMs: number;
}

/**
 * Decodes an upload. The bytes decide the format (magic numbers); the content type is a hint,
 * and the only source of layout for raw PCM. Throws AppError 415 `unsupported_audio`,
 * 422 `invalid_audio` or 413 `audio_too_long`, and nothing else for any input.
 */
export async function decodeAudio(
  bytes: Uint8Array,
  contentType: string | undefined,
  limits: DecodeLimits,
): Promise<DecodedAudio> {
  if (bytes.length === 0) throw invalidAudio("The request body is empty; send the recording's bytes");
  const media = parseMediaType(contentType);
  const raw = rawPcmLayout(media);
  const sniffed = sniffAudio(bytes, !raw);
  if (sniffed?.kind === "wav") {
    const { layout, data } = parseWav(bytes);
    return fromPcm(data, layout, "wav", limits);
  }
  if (sniffed?.kind === "unsupported")
    throw unsupportedAudio(`The body is ${sniffed.what}, which is not supported`);
  if (sniffed) return fromCompressed(bytes, sniffed.format, sniffed.decoder, limits);
  if (raw) return fromPcm(bytes, raw, "pcm", limits);
  return fromHint(bytes, media, limits);
}

function fromPcm(data: Uint8Array, layout: PcmLayout, format: string, limits: DecodeLimits): DecodedAudio {
  const frames = Math.floor(data.length / frameBytes(layout));
  if (frames === 0) throw invalidAudio(`The ${format} audio holds no complete sample frames`);
  const durationMs = (frames * 1000) / layout.sampleRate;
  // Exact from the byte count, so an over-long upload is refused before any conversion.
  if (durationMs > limits.maxDurationMs) throw audioTooLong(durationMs, limits.maxDurationMs);
  const mono = pcmToMono(data, layout);
  if (mono.invalidFrames === frames)
    throw invalidAudio(`Every sample of the ${format} audio is NaN or infinite`);
  return {
    pcm: resample(mono.samples, layout.sampleRate),
    sampleRate: SAMPLE_RATE,
    durationMs,
    source: { format, sampleRate: layout.sampleRate, channels: layout.channels },
  };
}

async function fromCompressed(
  bytes: Uint8Array,
  format: string,
  decoder: DecoderName,
  limits: DecodeLimits,
): Promise<DecodedAudio> {
  const { whole, declaredFrames } = preflight(bytes, format, limits);
  const decoded = await decodeOffLoop(bytes, {
    decoder,
    format,
    maxDurationMs: limits.maxDurationMs,
    whole,
  });
  if (decoded.frames === 0) throw invalidAudio(`The ${format} file decoded to no audio; it may be truncated`);
  // A damaged frame can end a decode early without an error: transcribing the part before it
  // would answer with a fraction of what was said, as if it were all.
  if (declaredFrames !== undefined && decoded.frames < declaredFrames * MIN_DECODED_SHARE) {
    const seconds = (frames: number) => `${(frames / decoded.sourceRate).toFixed(2)} s`;
    throw invalidAudio(
      `The ${format} file is damaged: only ${seconds(decoded.frames)} of its ${seconds(declaredFrames)} could be decoded`,
      { decodedFrames: decoded.frames, declaredFrames },
    );
  }
  if (decoded.invalidFrames === decoded.frames)
    throw invalidAudio(`The ${format} file decoded to NaN samples`);
  return {
    pcm: decoded.pcm,
    sampleRate: SAMPLE_RATE,
    durationMs: (decoded.frames * 1000) / decoded.sourceRate,
    source: { format, sampleRate: decoded.sourceRate, channels: decoded.channels },
  };
}

/** Less than this share of the samples a file declares, decoded, means the file is damaged. */
const MIN_DECODED_SHARE = 0.98;

/**
 * Cheap checks before a compressed decode: refuse what is already known to be too long, and
 * say whether the file must go to the decoder in one piece (see `decodeCompressed`).
 */
function preflight(
  bytes: Uint8Array,
  format: string,
  limits: DecodeLimits,
): { whole: boolean; declaredFrames?: number } {
  if (format === "flac") {
    const scan = scanFlac(bytes);
    if (scan.frames === 0) throw invalidAudio("The FLAC file holds no audio frames; it may be truncated");
    const durationMs = scan.sampleRate ? (scan.samples * 1000) / scan.sampleRate : 0;
    if (durationMs > limits.maxDurationMs) throw audioTooLong(durationMs, limits.maxDurationMs);
    return { whole: true, declaredFrames: scan.totalSamples };
  }
  if (format === "mp4") {
    const facts = inspectMp4(bytes);
    if (facts.declaredMs && facts.declaredMs > limits.maxDurationMs) {
      throw audioTooLong(facts.declaredMs, limits.maxDurationMs);
    }
    return { whole: !facts.moovFirst };
  }
  return { whole: false };
}

/** No magic number matched: only sync-based streams (MP3, ADTS) may start with other bytes. */
async function fromHint(bytes: Uint8Array, media: MediaType | undefined, limits: DecodeLimits) {
  const declared = declaredFormat(media);
  if (declared === "MP3") return fromCompressed(bytes, "mp3", "mp3", limits);
  if (declared === "AAC") return fromCompressed(bytes, "aac", "aac", limits);
  if (media && declared) {
    throw invalidAudio(
      `The body is declared as ${media.essence} but does not start with a ${declared} header; ` +
        "it may be truncated or in another format",
    );
  }
  if (media && !OPAQUE_TYPES.has(media.essence)) {
    throw unsupportedAudio(`Content type ${media.essence} is not an audio format this server decodes`);
  }
  throw unsupportedAudio("The audio format could not be recognised from its first bytes");
}
