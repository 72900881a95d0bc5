/**
 * The tensor layout whisper.cpp 1.7 builds for a model (`whisper_model_load`), so a file can be checked
 * against it tensor by tensor. Dimensions are in ggml order (innermost first), as stored in the file.
 */

/** ggml type id → [elements per block, bytes per block]. Only types a whisper model can use. */
const TYPES: Record<number, readonly [number, number]> = {
  0: [1, 4], // f32
  1: [1, 2], // f16
  2: [32, 18], // q4_0
  3: [32, 20], // q4_1
  6: [32, 22], // q5_0
  7: [32, 24], // q5_1
  8: [32, 34], // q8_0
  10: [256, 84], // q2_k
  11: [256, 110], // q3_k
  12: [256, 144], // q4_k
  13: [256, 176], // q5_k
  14: [256, 210], // q6_k
  30: [1, 2], // bf16
};

/** ggml file type (header `ftype`) → the type of the big 2-D weights. */
const WEIGHT_TYPE: Record<number, number> = {
  0: 0,
  1: 1,
  2: 2,
  3: 3,
  7: 8,
  8: 6,
  9: 7,
  10: 10,
  11: 11,
  12: 12,
  13: 13,
  14: 14,
  24: 30,
};

export const weightType = (ftype: number): number | undefined => WEIGHT_TYPE[ftype];

/** Bytes a tensor of this type and shape occupies; undefined when the type cannot hold that shape. */
export function tensorBytes(type: number, ne: readonly number[]): number | undefined {
  const info = TYPES[type];
  const rowLength = ne[0] ?? 0;
  if (!info || rowLength % info[0] !== 0) return undefined;
  const elements = ne.reduce((product, n) => product * n, 1);
  return (elements / info[0]) * info[1];
}

export interface ExpectedTensor {
  ne: number[];
  type: number;
}

interface Layout {
  nVocab: number;
  nState: number;
  nAudioLayer: number;
  nTextLayer: number;
  nMels: number;
  ftype: number;
}

export function expectedTensors(hp: Layout): Map<string, ExpectedTensor> {
  const S = hp.nState;
  const w = weightType(hp.ftype) ?? 1;
  // Convolution kernels stay f16 in quantised files (the quantiser only touches 2-D weights).
  const conv = w === 0 ? 0 : 1;
  const map = new Map<string, ExpectedTensor>();
  const add = (name: string, ne: number[], type = 0) => map.set(name, { ne, type });
  const norm = (p: string) => {
    add(`${p}.weight`, [S]);
    add(`${p}.bias`, [S]);
  };
  const attention = (p: string) => {
    add(`${p}.query.weight`, [S, S], w);
    add(`${p}.query.bias`, [S]);
    add(`${p}.key.weight`, [S, S], w);
    add(`${p}.value.weight`, [S, S], w);
    add(`${p}.value.bias`, [S]);
    add(`${p}.out.weight`, [S, S], w);
    add(`${p}.out.bias`, [S]);
  };
  const block = (p: string, cross: boolean) => {
    norm(`${p}.mlp_ln`);
    add(`${p}.mlp.0.weight`, [S, 4 * S], w);
    add(`${p}.mlp.0.bias`, [4 * S]);
    add(`${p}.mlp.2.weight`, [4 * S, S], w);
    add(`${p}.mlp.2.bias`, [S]);
    norm(`${p}.attn_ln`);
    attention(`${p}.attn`);
    if (cross) {
      norm(`${p}.cross_attn_ln`);
      attention(`${p}.cross_attn`);
    }
  };
  add("encoder.positional_embedding", [S, 1500]);
  add("encoder.conv1.weight", [3, hp.nMels, S], conv);
  add("encoder.conv1.bias", [1, S]);
  add("encoder.conv2.weight", [3, S, S], conv);
  add("encoder.conv2.bias", [1, S]);
  norm("encoder.ln_post");
  for (let i = 0; i < hp.nAudioLayer; i++) block(`encoder.blocks.${i}`, false);
  add("decoder.positional_embedding", [S, 448]);
  add("decoder.token_embedding.weight", [S, hp.nVocab], w);
  norm("decoder.ln");
  for (let i = 0; i < hp.nTextLayer; i++) block(`decoder.blocks.${i}`, true);
  return map;
}
