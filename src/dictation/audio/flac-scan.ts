// Counts the samples of a native FLAC stream from its frame headers (RFC 9639 §9.1) without
// decoding. FLAC compresses digital silence ~4000:1, so this is how a tiny file that expands to
// hours is refused before the decoder allocates anything.

/** Sum of frame block sizes, and the rate from STREAMINFO (undefined when the header is damaged). */
export interface FlacScan {
  frames: number;
  samples: number;
  sampleRate: number | undefined;
  /** The encoder's own count of samples per channel, from STREAMINFO; undefined when it wrote 0 (unknown). */
  totalSamples: number | undefined;
}

export function scanFlac(bytes: Uint8Array): FlacScan {
  let offset = 4;
  let sampleRate: number | undefined;
  let totalSamples: number | undefined;
  for (let last = false; !last && offset + 4 <= bytes.length; ) {
    const type = (bytes[offset] ?? 0) & 0x7f;
    last = ((bytes[offset] ?? 0) & 0x80) !== 0;
    const length =
      ((bytes[offset + 1] ?? 0) << 16) | ((bytes[offset + 2] ?? 0) << 8) | (bytes[offset + 3] ?? 0);
    if (type === 0 && length >= 18) {
      const at = offset + 14;
      sampleRate = ((bytes[at] ?? 0) << 12) | ((bytes[at + 1] ?? 0) << 4) | ((bytes[at + 2] ?? 0) >> 4);
      // 36 bits after the rate (20), channels (3) and bits per sample (5).
      const high = (bytes[at + 3] ?? 0) & 0x0f;
      const low =
        (((bytes[at + 4] ?? 0) << 24) |
          ((bytes[at + 5] ?? 0) << 16) |
          ((bytes[at + 6] ?? 0) << 8) |
          (bytes[at + 7] ?? 0)) >>>
        0;
      totalSamples = high * 2 ** 32 + low || undefined;
    }
    offset += 4 + length;
  }
  let frames = 0;
  let samples = 0;
  for (let i = offset; i + 6 <= bytes.length; i++) {
    if (bytes[i] !== 0xff || ((bytes[i + 1] ?? 0) & 0xfe) !== 0xf8) continue;
    const header = frameHeader(bytes, i);
    if (!header) continue;
    frames++;
    samples += header.blockSize;
    i += header.length - 1;
  }
  return { frames, samples, sampleRate: sampleRate || undefined, totalSamples };
}

/** A frame header whose reserved bits, coded number and CRC-8 all check out. */
function frameHeader(bytes: Uint8Array, at: number): { blockSize: number; length: number } | undefined {
  const b = (i: number) => bytes[at + i] ?? 0;
  const sizeCode = b(2) >> 4;
  const rateCode = b(2) & 0x0f;
  if (sizeCode === 0 || rateCode === 15 || b(3) >> 4 > 10 || ((b(3) >> 1) & 7) === 3 || b(3) & 1)
    return undefined;
  // The frame number is UTF-8 coded: the leading ones of its first byte give its length.
  const ones = Math.clz32(~(b(4) << 24));
  if (ones === 1 || ones > 7) return undefined;
  let length = 4 + Math.max(ones, 1);
  for (let k = 5; k < length; k++) if ((b(k) & 0xc0) !== 0x80) return undefined;
  let blockSize = sizeCode === 1 ? 192 : sizeCode <= 5 ? 576 << (sizeCode - 2) : 256 << (sizeCode - 8);
  if (sizeCode === 6) blockSize = b(length++) + 1;
  else if (sizeCode === 7) {
    blockSize = ((b(length) << 8) | b(length + 1)) + 1;
    length += 2;
  }
  if (rateCode === 12) length += 1;
  else if (rateCode === 13 || rateCode === 14) length += 2;
  if (at + length >= bytes.length || crc8(bytes, at, length) !== b(length)) return undefined;
  return { blockSize, length: length + 1 };
}

function crc8(bytes: Uint8Array, start: number, length: number): number {
  let crc = 0;
  for (let i = start; i < start + length; i++) {
    crc ^= bytes[i] ?? 0;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}
