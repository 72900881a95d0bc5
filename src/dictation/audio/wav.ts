import { invalidAudio, unsupportedAudio } from "./errors.ts";
import { checkSampleRate, type PcmLayout, type SampleEncoding } from "./pcm.ts";

/** The sample layout of a WAV file and the audio bytes actually present in it. */
export interface WavContents {
  layout: PcmLayout;
  data: Uint8Array;
}

// Real files hold a handful of chunks; a long run of them is junk, not audio.
const MAX_CHUNKS = 512;
// Writers that stream (no seek back) leave the data size at 0 or 0xFFFFFFFF: "to the end".
const STREAMING_SIZES = new Set([0, 0xffffffff]);
// KSDATAFORMAT_SUBTYPE_PCM/IEEE_FLOAT: {000000XX-0000-0010-8000-00AA00389B71}, bytes 2..15.
const EXTENSIBLE_GUID_TAIL = [0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xaa, 0, 0x38, 0x9b, 0x71];
const CODEC_NAMES: Record<number, string> = { 2: "MS ADPCM", 17: "IMA ADPCM", 49: "GSM 6.10", 85: "MP3" };

/**
 * Reads a RIFF/RF64 WAVE header. Declared sizes only ever shrink what is read: the RIFF size is
 * ignored, every chunk is clamped to the bytes present, and nothing is allocated here.
 */
export function parseWav(bytes: Uint8Array): WavContents {
  if (bytes.length < 12) throw invalidAudio("The WAV file is too short to hold a header");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let layout: PcmLayout | undefined;
  let data: Uint8Array | undefined;
  let rf64DataSize: number | undefined;
  let offset = 12;
  for (let chunks = 0; offset + 8 <= bytes.length && !(layout && data); chunks++) {
    if (chunks === MAX_CHUNKS) throw invalidAudio(`The WAV file has more than ${MAX_CHUNKS} chunks`);
    const id = fourCC(bytes, offset);
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === "ds64" && size >= 16 && body + 16 <= bytes.length) {
      rf64DataSize = view.getUint32(body + 8, true) + view.getUint32(body + 12, true) * 2 ** 32;
    } else if (id === "fmt " && !layout) {
      layout = parseFormat(new DataView(bytes.buffer, bytes.byteOffset + body, clamp(size, body, bytes)));
    } else if (id === "data" && !data) {
      const declared = size === 0xffffffff && rf64DataSize !== undefined ? rf64DataSize : size;
      if (STREAMING_SIZES.has(declared)) {
        if (!layout) throw invalidAudio("The WAV data chunk comes before its fmt chunk and has no size");
        return { layout, data: bytes.subarray(body) };
      }
      data = bytes.subarray(body, body + clamp(declared, body, bytes));
    }
    offset = nextChunk(bytes, body, size);
  }
  if (!layout) throw invalidAudio("The WAV file has no fmt chunk (sample format)");
  if (!data) throw invalidAudio("The WAV file has no data chunk (it may be truncated)");
  return { layout, data };
}

function parseFormat(fmt: DataView): PcmLayout {
  if (fmt.byteLength < 16) throw invalidAudio("The WAV fmt chunk is shorter than 16 bytes");
  let tag = fmt.getUint16(0, true);
  const channels = fmt.getUint16(2, true);
  const sampleRate = fmt.getUint32(4, true);
  const bits = fmt.getUint16(14, true);
  if (tag === 0xfffe) tag = extensibleSubformat(fmt);
  if (channels === 0) throw invalidAudio("The WAV header declares 0 channels");
  checkSampleRate(sampleRate, "The WAV header");
  return { encoding: encodingOf(tag, bits, fmt.getUint16(12, true) / channels), channels, sampleRate };
}

function extensibleSubformat(fmt: DataView): number {
  if (fmt.byteLength < 40) throw invalidAudio("The WAVE_FORMAT_EXTENSIBLE fmt chunk is truncated");
  const tail = EXTENSIBLE_GUID_TAIL.every((byte, i) => fmt.getUint8(26 + i) === byte);
  if (!tail) throw unsupportedAudio("The WAV file uses an unknown WAVE_FORMAT_EXTENSIBLE subformat");
  return fmt.getUint16(24, true);
}

/**
 * `blockBytes` (block align ÷ channels) only settles the container of odd widths such as 20-bit
 * in 3 bytes; for the usual widths the bit depth decides and a lying block align is ignored.
 */
function encodingOf(tag: number, bits: number, blockBytes: number): SampleEncoding {
  if (bits === 0 || bits > 64) throw invalidAudio(`The WAV header declares ${bits} bits per sample`);
  const width = [8, 16, 24, 32].includes(bits) ? bits : Math.ceil(bits / 8) * 8;
  if (tag === 1 && (width === bits || width === blockBytes * 8)) {
    const pcm: Record<number, SampleEncoding> = { 8: "u8", 16: "s16le", 24: "s24le", 32: "s32le" };
    const encoding = pcm[width];
    if (encoding) return encoding;
  }
  if (tag === 3 && (bits === 32 || bits === 64)) return bits === 32 ? "f32le" : "f64le";
  if (tag === 7 && bits === 8) return "mulaw";
  if (tag === 6 && bits === 8) return "alaw";
  const codec = CODEC_NAMES[tag] ?? `format 0x${tag.toString(16).padStart(4, "0")}`;
  throw unsupportedAudio(`This WAV file holds ${codec} at ${bits} bits, which is not supported`, {
    formatTag: tag,
    bitsPerSample: bits,
  });
}

/** Bytes of a chunk body actually present: never past the end of the file. */
const clamp = (declared: number, body: number, bytes: Uint8Array) =>
  Math.max(0, Math.min(declared, bytes.length - body));

/** Odd chunks are padded to even; some writers forget, so accept the unpadded position too. */
function nextChunk(bytes: Uint8Array, body: number, size: number): number {
  const padded = body + size + (size & 1);
  if (size & 1 && !isChunkId(bytes, padded) && isChunkId(bytes, padded - 1)) return padded - 1;
  return padded;
}

function isChunkId(bytes: Uint8Array, offset: number): boolean {
  if (offset + 8 > bytes.length) return false;
  for (let i = offset; i < offset + 4; i++) {
    const c = bytes[i] ?? 0;
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

export const fourCC = (bytes: Uint8Array, offset: number) =>
  String.fromCharCode(
    bytes[offset] ?? 0,
    bytes[offset + 1] ?? 0,
    bytes[offset + 2] ?? 0,
    bytes[offset + 3] ?? 0,
  );
