// G.711 µ-law and A-law, the 8-bit telephone codecs (WAV formats 7 and 6, RTP PCMU/PCMA).
// Expanding through a 256-entry table is exact and as fast as reading 8-bit PCM.

const tables: Partial<Record<"mulaw" | "alaw", Float32Array>> = {};

/** Lookup table from a coded byte to a sample in [-1, 1], built on first use. */
export function g711Table(law: "mulaw" | "alaw"): Float32Array {
  const cached = tables[law];
  if (cached) return cached;
  const table = new Float32Array(256);
  for (let code = 0; code < 256; code++) table[code] = (law === "mulaw" ? mulaw(code) : alaw(code)) / 32768;
  tables[law] = table;
  return table;
}

function mulaw(code: number): number {
  const u = ~code & 0xff;
  const magnitude = ((((u & 0x0f) << 3) + 0x84) << ((u >> 4) & 7)) - 0x84;
  return u & 0x80 ? -magnitude : magnitude;
}

function alaw(code: number): number {
  const a = code ^ 0x55;
  const exponent = (a >> 4) & 7;
  const mantissa = (a & 0x0f) << 4;
  const magnitude = exponent === 0 ? mantissa + 8 : (mantissa + 0x108) << (exponent - 1);
  return a & 0x80 ? magnitude : -magnitude;
}
