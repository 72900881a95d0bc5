import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { validateWhisperModel } from "../../../../src/dictation/engines/whisper/ggml-model.ts";
import { AppError } from "../../../../src/errors.ts";
import { syntheticModel } from "../../../helpers/synthetic-model.ts";

const dir = mkdtempSync(join(tmpdir(), "svc-ggml-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const good = new Uint8Array(readFileSync(syntheticModel("micro")));
/** Byte offset of the first tensor's name; its header (n_dims, name_len, type, ne0, ne1) precedes it. */
const firstName = Buffer.from(good).indexOf("encoder.positional_embedding");
const VOCAB_START = 48 + 8 + 80 * 201 * 4 + 4;
/** decoder.ln.bias, the last tensor: 3 ints, 1 dim, 15-byte name, 64 float32. */
const LAST_TENSOR_BYTES = 12 + 4 + 15 + 64 * 4;

/** An edit changes the copy in place, or returns a replacement. */
type Edit = (bytes: Uint8Array) => Uint8Array | undefined;

function variant(name: string, edit: Edit): string {
  const path = join(dir, name);
  const bytes = good.slice();
  writeFileSync(path, edit(bytes) ?? bytes);
  return path;
}

const setI32 =
  (offset: number, value: number): Edit =>
  (bytes) => {
    new DataView(bytes.buffer).setInt32(offset, value, true);
    return undefined;
  };
const setByte =
  (offset: number, value: number): Edit =>
  (bytes) => {
    bytes[offset] = value;
    return undefined;
  };

describe("validateWhisperModel", () => {
  test("accepts the synthetic model and reports its shape", () => {
    const info = validateWhisperModel(syntheticModel("micro"));
    expect(info).toMatchObject({ nVocab: 51864, nState: 64, nAudioLayer: 1, multilingual: false, ftype: 1 });
    expect(info.tensorCount).toBe(50);
    expect(info.sizeBytes).toBe(good.length);
  });

  test("recognises the base.en layout", () => {
    expect(validateWhisperModel(syntheticModel("base.en"))).toMatchObject({ size: "base", nState: 512 });
  });

  test("reads large-v3-turbo's layout: 128 mels, 4 decoder layers under 32, v3's vocabulary", () => {
    // The layout of the benchmarks' large-v3-turbo preset at a width that is written in milliseconds.
    expect(validateWhisperModel(syntheticModel("micro-v3"))).toMatchObject({
      size: "large",
      nMels: 128,
      nAudioLayer: 32,
      nTextLayer: 4,
      nVocab: 51866,
      multilingual: true,
    });
  });

  test("the GPU machine's C writer (scripts/bench/gpu) writes the tests' bytes, shape for shape", () => {
    // Figures measured with whisper.cpp's own tools on a machine without Bun used that writer: they
    // compare with svc's only if both load the same model.
    const writer = join(dir, "synthetic-model");
    const source = resolve(import.meta.dir, "../../../../scripts/bench/gpu/synthetic-model.c");
    const compiled = spawnSync("cc", ["-O2", "-o", writer, source], { encoding: "utf8" });
    expect(compiled.stderr).toBe("");
    for (const [preset, args] of [
      ["micro", "64 1 1 1 80 51864"],
      ["micro-v3", "64 1 32 4 128 51866"],
    ] as const) {
      const path = join(dir, `${preset}-from-c.bin`);
      expect(spawnSync(writer, [path, ...args.split(" ")]).status).toBe(0);
      expect(readFileSync(path).equals(readFileSync(syntheticModel(preset)))).toBe(true);
    }
  });

  const corrupt: [string, Edit, RegExp][] = [
    ["an empty file", () => new Uint8Array(0), /truncated/],
    ["a file cut inside the header", (b) => b.subarray(0, 30), /truncated/],
    ["a GGUF file", setI32(0, 0x46554747), /magic/],
    ["random bytes", () => new Uint8Array(4096).map((_, i) => (i * 7919) % 251), /magic/],
    ["an impossible n_vocab", setI32(4, 1000), /n_vocab/],
    ["encoder and decoder widths that differ", setI32(12, 65), /n_state/],
    ["heads that do not divide the width", setI32(16, 3), /n_audio_head/],
    ["n_mels of 81", setI32(40, 81), /n_mels/],
    ["an unknown file type", setI32(44, 99), /file type/],
    ["a file cut inside the vocabulary", (b) => b.subarray(0, VOCAB_START + 1000), /truncated/],
    ["a vocabulary without the space token", setByte(VOCAB_START + 32 * 5 + 4, 0x21), /" " token/],
    ["a tensor of the wrong type", setI32(firstName - 12, 1), /has type 1, expected 0/],
    ["a tensor of the wrong shape", setI32(firstName - 8, 65), /wrong shape/],
    ["a file cut inside a tensor", (b) => b.subarray(0, b.length - 100), /truncated/],
    [
      "a file missing its last tensor",
      (b) => b.subarray(0, b.length - LAST_TENSOR_BYTES),
      /missing.*decoder\.ln\.bias/,
    ],
    ["trailing garbage", (b) => Buffer.concat([b, new Uint8Array(40)]), /corrupt/],
  ];

  test.each(corrupt)("rejects %s with 422 invalid_model", (name, edit, problem) => {
    const path = variant(name.replaceAll(" ", "-"), edit);
    let error: unknown;
    try {
      validateWhisperModel(path);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ status: 422, code: "invalid_model" });
    expect((error as AppError).message).toMatch(problem);
  });

  test("reports a missing file as 503 model_unavailable", () => {
    expect(() => validateWhisperModel(join(dir, "nope.bin"))).toThrow(
      expect.objectContaining({ status: 503, code: "model_unavailable" }),
    );
  });
});
