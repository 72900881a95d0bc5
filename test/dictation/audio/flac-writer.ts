// Writes a valid FLAC stream of digital silence using CONSTANT subframes (RFC 9639): each frame
// of up to 65 536 samples costs ~12 bytes, which makes a decompression bomb of a few kilobytes.

export function silentFlac(sampleRate: number, blockSize: number, frames: number): Uint8Array {
  const parts: number[] = [
    ...new TextEncoder().encode("fLaC"),
    0x80,
    0,
    0,
    34,
    ...streamInfo(sampleRate, blockSize, frames),
  ];
  for (let n = 0; n < frames; n++) parts.push(...frame(n, blockSize, sampleRate));
  return Uint8Array.from(parts);
}

function streamInfo(sampleRate: number, blockSize: number, frames: number): number[] {
  const total = BigInt(blockSize) * BigInt(frames);
  const bits = (BigInt(sampleRate) << 44n) | (0n << 41n) | (15n << 36n) | (total & 0xfffffffffn); // mono, 16-bit
  const packed = Array.from({ length: 8 }, (_, i) => Number((bits >> BigInt(56 - i * 8)) & 0xffn));
  return [
    blockSize >> 8,
    blockSize & 0xff,
    blockSize >> 8,
    blockSize & 0xff,
    0,
    0,
    0,
    0,
    0,
    0,
    ...packed,
    ...new Array(16).fill(0),
  ];
}

// Frame-header codes for common rates; audio-decode's parser wants the rate in every frame.
const RATE_CODES: Record<number, number> = {
  8000: 4,
  16000: 5,
  22050: 6,
  24000: 7,
  32000: 8,
  44100: 9,
  48000: 10,
};

function frame(number: number, blockSize: number, sampleRate: number): number[] {
  // Block size code 7: 16-bit (size - 1) after the frame number; mono; depth code 4 = 16 bits.
  const rateCode = RATE_CODES[sampleRate] ?? 0;
  const header = [
    0xff,
    0xf8,
    0x70 | rateCode,
    0x08,
    ...utf8Number(number),
    (blockSize - 1) >> 8,
    (blockSize - 1) & 0xff,
  ];
  header.push(crc(header, 8, 0x07));
  const body = [...header, 0x00, 0x00, 0x00]; // CONSTANT subframe, value 0
  const footer = crc(body, 16, 0x8005);
  return [...body, footer >> 8, footer & 0xff];
}

function utf8Number(n: number): number[] {
  if (n < 0x80) return [n];
  if (n < 0x800) return [0xc0 | (n >> 6), 0x80 | (n & 0x3f)];
  return [0xe0 | (n >> 12), 0x80 | ((n >> 6) & 0x3f), 0x80 | (n & 0x3f)];
}

function crc(bytes: number[], width: 8 | 16, polynomial: number): number {
  const top = 1 << (width - 1);
  const mask = (1 << width) - 1;
  let value = 0;
  for (const byte of bytes) {
    value ^= byte << (width - 8);
    for (let bit = 0; bit < 8; bit++)
      value = value & top ? ((value << 1) ^ polynomial) & mask : (value << 1) & mask;
  }
  return value;
}
