import decode, { type AudioData } from "audio-decode";
import { isAppError, reasonOf } from "../../errors.ts";
import { audioTooLong, invalidAudio, unsupportedAudio } from "./errors.ts";
import { checkSampleRate, planarToMono } from "./pcm.ts";
import { concat, createResampler, type Resampler } from "./resample.ts";
import type { DecoderName } from "./sniff.ts";

/** Decoded audio already at 16 kHz mono, with what the stream itself said about its source. */
export interface DecodedStream {
  pcm: Float32Array;
  sourceRate: number;
  channels: number;
  /** Source frames, the duration at `sourceRate`. */
  frames: number;
  /** Frames that held NaN/Inf and were replaced by silence. */
  invalidFrames: number;
}

export interface CompressedOptions {
  decoder: DecoderName;
  /** Human name for messages ("webm", "mp3", …). */
  format: string;
  maxDurationMs: number;
  /** Feed the file in one call (see `decodeCompressed`). */
  whole: boolean;
}

// Small chunks bound what one decoder call can expand to (Opus silence is ~3000 samples a byte)
// and let the duration cap stop a long file early; they also avoid the WebM demuxer's slowdown
// on large single inputs (whole 160 s WebM: 51 s; in 16 KB chunks: 1.8 s).
const CHUNK_BYTES = 8192;

export const ALL_DECODERS: readonly DecoderName[] = ["webm", "opus", "oga", "mp3", "flac", "m4a", "aac"];

/**
 * A compressed stream decoded as its bytes arrive, in parts already 16 kHz mono (the caller joins
 * them once, however many calls they came from).
 */
export interface CompressedStream {
  /** Decodes the next bytes, fed to the library in small chunks so the duration cap acts early. */
  push(bytes: Uint8Array): Promise<Float32Array[]>;
  /** Decodes what the library still holds and the resampler's last samples; frees the decoder. */
  end(): Promise<Float32Array[]>;
  /** Frees the decoder without finishing (a cancelled stream); safe to call twice. */
  free(): void;
  /** What the stream said about its source so far. */
  readonly source: Omit<DecodedStream, "pcm">;
}

/** Opens a decoder for one compressed stream (see `decodeCompressed` for `whole`). */
export async function openCompressedStream(options: CompressedOptions): Promise<CompressedStream> {
  const { decoder, format, maxDurationMs } = options;
  const sink = createSink(format, maxDurationMs);
  let stream: Awaited<ReturnType<(typeof decode)[DecoderName]>> | undefined;
  try {
    stream = await decode[decoder]();
  } catch (error) {
    throw libraryError(format, error);
  }
  const library = stream;
  let freed = false;
  const free = () => {
    if (freed) return;
    freed = true;
    library.free();
  };
  async function guarded<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      free();
      throw isAppError(error) ? error : libraryError(format, error);
    }
  }
  return {
    push: (bytes) =>
      guarded(async () => {
        const parts: Float32Array[] = [];
        const chunk = options.whole ? bytes.length : CHUNK_BYTES;
        for (let offset = 0; offset < bytes.length; offset += chunk) {
          parts.push(sink.add(await library(bytes.subarray(offset, offset + chunk))));
        }
        return parts;
      }),
    end: () =>
      guarded(async () => {
        const last = sink.add(await library());
        free();
        return [last, sink.flush()];
      }),
    free,
    get source() {
      return sink.source();
    },
  };
}

/**
 * Decodes a compressed file through `audio-decode`, downmixing and resampling as chunks come
 * out. `whole` is for inputs the library mishandles in pieces and that the caller has already
 * bounded: native FLAC (small chunks lose its last frames) and MP4 with the index at the end
 * (the demuxer re-copies everything before the index on every chunk).
 */
export async function decodeCompressed(
  bytes: Uint8Array,
  options: CompressedOptions,
): Promise<DecodedStream> {
  const stream = await openCompressedStream(options);
  try {
    const pcm = concat([...(await stream.push(bytes)), ...(await stream.end())]);
    return { pcm, ...stream.source };
  } finally {
    stream.free();
  }
}

/** Compiles each decoder's WASM now, so the first request of each format does not pay for it. */
export async function warmUpDecoders(decoders: readonly DecoderName[] = ALL_DECODERS): Promise<void> {
  for (const name of decoders) (await decode[name]()).free();
}

function createSink(format: string, maxDurationMs: number) {
  let rate = 0;
  let channels = 0;
  let frames = 0;
  let invalidFrames = 0;
  let resampler: Resampler | undefined;
  const none = new Float32Array(0);
  return {
    /** The 16 kHz mono of one decoded part. */
    add(result: AudioData): Float32Array {
      const first = result.channelData[0];
      if (!first?.length) return none;
      if (!resampler) {
        checkSampleRate(result.sampleRate, `The ${format} stream`);
        rate = result.sampleRate;
        resampler = createResampler(rate);
      } else if (result.sampleRate !== rate) {
        throw invalidAudio(
          `The ${format} stream changes sample rate part-way (${rate} → ${result.sampleRate} Hz)`,
        );
      }
      channels = Math.max(channels, result.channelData.length);
      frames += first.length;
      const durationMs = (frames * 1000) / rate;
      if (durationMs > maxDurationMs) throw audioTooLong(durationMs, maxDurationMs, true);
      const mono = planarToMono(result.channelData);
      invalidFrames += mono.invalidFrames;
      return resampler.push(mono.samples);
    },
    flush: (): Float32Array => resampler?.flush() ?? none,
    source: () => ({ sourceRate: rate, channels, frames, invalidFrames }),
  };
}

/** The library throws plain Errors; its wording is the only hint of unsupported vs broken. */
function libraryError(format: string, error: unknown) {
  const reason = reasonOf(error);
  // A codec left out of a build (`bun build --external`) fails to load: unsupported here too.
  if (
    /unsupported|not supported|no decoder|unknown audio format|cannot find (module|package)/i.test(reason)
  ) {
    return unsupportedAudio(`The ${format} file uses a codec that cannot be decoded (${reason})`);
  }
  return invalidAudio(`The ${format} file could not be decoded (${reason}); it may be truncated or damaged`);
}
