// Writes whisper.cpp models (legacy ggml, f16) with the real tensor layout and random weights, so the
// real engine can be exercised offline: load, threads, abort, timing. Transcripts are gibberish; never
// assert on their text. Layout as whisper.cpp's legacy ggml loader reads it.
import { closeSync, existsSync, mkdirSync, openSync, renameSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type SyntheticPreset =
  | "micro"
  | "micro-multilingual"
  | "tiny.en"
  | "base.en"
  | "micro-v3"
  | "small"
  | "large-v3-turbo";

const PRESETS: Record<SyntheticPreset, SyntheticShape> = {
  micro: { state: 64, heads: 1, layers: 1 },
  // whisper.cpp reads a vocabulary of 51865 or more as multilingual (it can translate).
  "micro-multilingual": { state: 64, heads: 1, layers: 1, multilingual: true },
  "tiny.en": { state: 384, heads: 6, layers: 4 },
  "base.en": { state: 512, heads: 8, layers: 6 },
  // large-v3-turbo's layout (32 encoder and 4 decoder layers, 128 mels, v3's vocabulary) 64 wide.
  "micro-v3": { state: 64, heads: 1, layers: 32, decoderLayers: 4, mels: 128, vocab: 51866 },
  // The benchmarks' larger shapes (bun run bench devices): small is 488 MB, large-v3-turbo 1.6 GB, its
  // 32 encoder layers and 4 decoder layers reading 128 mels, with v3's vocabulary (51866).
  small: { state: 768, heads: 12, layers: 12, multilingual: true },
  "large-v3-turbo": { state: 1280, heads: 20, layers: 32, decoderLayers: 4, mels: 128, vocab: 51866 },
};
const N_VOCAB = 51864;
const N_VOCAB_MULTILINGUAL = 51865;
const BASE_TOKENS = 50256;
const F32_NAMES = new Set([
  "encoder.conv1.bias",
  "encoder.conv2.bias",
  "encoder.positional_embedding",
  "decoder.positional_embedding",
]);

/** Uniform values in ±0.02 from a seeded LCG, so every generated file is byte-identical. */
function randomPools(size: number, firstSeed: number): { f16: Uint16Array; f32: Float32Array } {
  let seed = firstSeed;
  const f32 = new Float32Array(size);
  for (let i = 0; i < size; i++) {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    f32[i] = (seed / 2 ** 32 - 0.5) * 0.04;
  }
  const bits = new Uint32Array(f32.buffer);
  const f16 = new Uint16Array(size);
  for (let i = 0; i < size; i++) {
    // float32 → half by truncation; the values are small and normal, so no rounding subtleties matter.
    const u = bits[i] ?? 0;
    const exp = ((u >>> 23) & 0xff) - 112;
    f16[i] = exp <= 0 ? (u >>> 16) & 0x8000 : ((u >>> 16) & 0x8000) | (exp << 10) | ((u & 0x7fffff) >>> 13);
  }
  return { f16, f32 };
}

/**
 * The shape of a synthetic model: width, heads, layers, and how many vocabulary tokens it lists.
 * scripts/bench/gpu/synthetic-model.c writes the same bytes for machines without Bun.
 */
export interface SyntheticShape {
  state: number;
  heads: number;
  /** The encoder's layers, and the decoder's unless decoderLayers says otherwise. */
  layers: number;
  decoderLayers?: number;
  /** 80 (default) or 128 (large-v3 and its turbo). */
  mels?: number;
  /** 256 (the single bytes) up to 50256; whisper.cpp fills the rest of n_vocab itself. */
  tokens?: number;
  /** Varies the weights, so two files of one shape have different bytes. */
  seed?: number;
  /** A multilingual vocabulary size (the model can translate); default English-only. */
  multilingual?: boolean;
  /** n_vocab itself (51866 for v3), over what multilingual says. */
  vocab?: number;
}

/** Emits a synthetic model's bytes, in order, to `write`. */
function emitSyntheticModel(shape: SyntheticShape, write: (chunk: Uint8Array) => void): void {
  const { state: S, heads: H, layers: L } = shape;
  const decoderLayers = shape.decoderLayers ?? L;
  const MELS = shape.mels ?? 80;
  const pool = randomPools(1 << 18, shape.seed ?? 1);
  const ones = new Float32Array(pool.f32.length).fill(1);
  const zeros = new Float32Array(pool.f32.length);
  const bytes = (view: ArrayBufferView) =>
    write(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
  const i32 = (...values: number[]) => bytes(new Int32Array(values));
  const tensor = (name: string, shape: number[], fill: "random" | "one" | "zero" = "random") => {
    const count = shape.reduce((a, b) => a * b, 1);
    const half = shape.length >= 2 && !F32_NAMES.has(name);
    const nameBytes = new TextEncoder().encode(name);
    i32(shape.length, nameBytes.length, half ? 1 : 0, ...[...shape].reverse());
    bytes(nameBytes);
    const source = half ? pool.f16 : fill === "random" ? pool.f32 : fill === "one" ? ones : zeros;
    for (let off = 0; off < count; off += source.length)
      bytes(source.subarray(0, Math.min(source.length, count - off)));
  };
  const norm = (p: string) => {
    tensor(`${p}.weight`, [S], "one");
    tensor(`${p}.bias`, [S], "zero");
  };
  const linear = (p: string, out: number, inp: number, bias = true) => {
    tensor(`${p}.weight`, [out, inp]);
    if (bias) tensor(`${p}.bias`, [out], "zero");
  };
  const attention = (p: string) => {
    linear(`${p}.query`, S, S);
    linear(`${p}.key`, S, S, false);
    linear(`${p}.value`, S, S);
    linear(`${p}.out`, S, S);
  };
  const block = (p: string, cross: boolean) => {
    norm(`${p}.mlp_ln`);
    linear(`${p}.mlp.0`, 4 * S, S);
    linear(`${p}.mlp.2`, S, 4 * S);
    norm(`${p}.attn_ln`);
    attention(`${p}.attn`);
    if (cross) {
      norm(`${p}.cross_attn_ln`);
      attention(`${p}.cross_attn`);
    }
  };
  const tokens = shape.tokens ?? BASE_TOKENS;
  const vocab = shape.vocab ?? (shape.multilingual ? N_VOCAB_MULTILINGUAL : N_VOCAB);
  i32(0x67676d6c, vocab, 1500, S, H, L, 448, S, H, decoderLayers, MELS, 1);
  i32(MELS, 201);
  bytes(new Float32Array(MELS * 201).fill(0.001));
  i32(tokens);
  const encoder = new TextEncoder();
  for (let i = 0; i < tokens; i++) {
    // Tokens 0–255 are the single bytes, as in the real vocabulary: whisper.cpp needs " " among them.
    const token = i < 256 ? new Uint8Array([i]) : encoder.encode(` w${i}`);
    i32(token.length);
    bytes(token);
  }
  tensor("encoder.positional_embedding", [1500, S]);
  tensor("encoder.conv1.weight", [S, MELS, 3]);
  tensor("encoder.conv1.bias", [S, 1], "zero");
  tensor("encoder.conv2.weight", [S, S, 3]);
  tensor("encoder.conv2.bias", [S, 1], "zero");
  for (let l = 0; l < L; l++) block(`encoder.blocks.${l}`, false);
  norm("encoder.ln_post");
  tensor("decoder.positional_embedding", [448, S]);
  tensor("decoder.token_embedding.weight", [vocab, S]);
  for (let l = 0; l < decoderLayers; l++) block(`decoder.blocks.${l}`, true);
  norm("decoder.ln");
}

/** Writes a synthetic model for `preset` to `path` (overwriting it). */
export function writeSyntheticModel(path: string, preset: SyntheticPreset = "micro"): void {
  const fd = openSync(path, "w");
  try {
    emitSyntheticModel(PRESETS[preset], (chunk) => writeSync(fd, chunk));
  } finally {
    closeSync(fd);
  }
}

/** A small synthetic model held in memory: loadable by whisper.cpp and valid to every check svc runs. */
export function syntheticModelBytes(shape: SyntheticShape): Uint8Array<ArrayBuffer> {
  const chunks: Uint8Array[] = [];
  emitSyntheticModel(shape, (chunk) => chunks.push(chunk.slice()));
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** Path of a cached synthetic model in the temp dir, generated on first use (atomically). */
export function syntheticModel(preset: SyntheticPreset = "micro"): string {
  const dir = join(tmpdir(), "svc-synthetic-ggml");
  const path = join(dir, `${preset}-v1.bin`);
  if (existsSync(path)) return path;
  mkdirSync(dir, { recursive: true });
  const partial = `${path}.${process.pid}.partial`;
  writeSyntheticModel(partial, preset);
  renameSync(partial, path);
  return path;
}
