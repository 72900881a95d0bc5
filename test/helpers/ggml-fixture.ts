import type { ModelPreset } from "../../src/dictation/engines/whisper/models/presets.ts";
import { syntheticModelBytes } from "./synthetic-model.ts";

/**
 * A small whisper model that passes every check svc runs (and loads in whisper.cpp): 180 KB at
 * `state` 1, about 1.9 MB at 16. `seed` varies the weights, so each seed has its own SHA-256.
 */
export const whisperModelFile = (seed = 1, state = 1): Uint8Array<ArrayBuffer> =>
  syntheticModelBytes({ state, heads: 1, layers: 1, tokens: 256, seed });

/** whisper.cpp's 12-field ggml header for a tiny.en-shaped model: magic, hparams, ftype f16. */
const HEADER = [0x67676d6c, 51864, 1500, 384, 6, 4, 448, 384, 6, 4, 80, 1];

/**
 * A file with a valid whisper ggml header followed by seeded pseudo-random bytes: what a broken
 * download or a damaged copy looks like. Refused by the models store (its tensors are garbage).
 */
export function ggmlLikeFile(sizeBytes: number, seed = 1): Uint8Array {
  const bytes = new Uint8Array(sizeBytes);
  const view = new DataView(bytes.buffer);
  HEADER.forEach((value, i) => {
    view.setUint32(i * 4, value, true);
  });
  let state = seed >>> 0;
  for (let i = HEADER.length * 4; i < sizeBytes; i++) {
    state = (state * 1664525 + 1013904223) >>> 0;
    bytes[i] = state >>> 24;
  }
  return bytes;
}

export const sha256Hex = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

/** A preset pinned to `bytes`, for serving from a test mirror under the preset's file name. */
export function presetFor(id: string, bytes: Uint8Array, overrides: Partial<ModelPreset> = {}): ModelPreset {
  return {
    id,
    file: `ggml-${id}.bin`,
    sizeBytes: bytes.length,
    sha256: sha256Hex(bytes),
    languages: "en",
    quantization: "f16",
    description: `test model ${id}`,
    ...overrides,
  };
}
