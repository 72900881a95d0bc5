import { describe, expect, test } from "bun:test";
import {
  defaultModelBaseUrl,
  defaultModelId,
  findPreset,
  modelPresets,
  presetUrl,
} from "../../../../../src/dictation/engines/whisper/models/presets.ts";

describe("model presets", () => {
  test("cover the English models, their q5_1 variants and multilingual tiny and base", () => {
    expect(modelPresets.map((p) => p.id).sort()).toEqual(
      [
        "base",
        "base.en",
        "base.en-q5_1",
        "small.en",
        "small.en-q5_1",
        "tiny",
        "tiny.en",
        "tiny.en-q5_1",
      ].sort(),
    );
    expect(findPreset(defaultModelId, modelPresets)?.file).toBe("ggml-base.en.bin");
  });

  test.each(modelPresets.map((p) => [p.id, p] as const))("%s is pinned by size and SHA-256", (id, preset) => {
    expect(preset.file).toBe(`ggml-${id}.bin`);
    expect(preset.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(preset.sizeBytes).toBeGreaterThan(30_000_000);
    expect(preset.languages).toBe(id.includes(".en") ? "en" : "multilingual");
    expect(preset.quantization).toBe(id.endsWith("-q5_1") ? "q5_1" : "f16");
    expect(preset.description.length).toBeGreaterThan(10);
  });

  test("hashes and sizes are all different", () => {
    expect(new Set(modelPresets.map((p) => p.sha256)).size).toBe(modelPresets.length);
    expect(new Set(modelPresets.map((p) => p.sizeBytes)).size).toBe(modelPresets.length);
  });

  test("download URLs follow the upstream layout under any mirror", () => {
    const base = findPreset("base.en", modelPresets);
    if (!base) throw new Error("base.en preset missing");
    expect(presetUrl(defaultModelBaseUrl, base)).toBe(
      "https://huggingface.co/ggerganov/whisper.cpp/resolve/main/ggml-base.en.bin",
    );
    expect(presetUrl("http://mirror.lan/whisper/", base)).toBe("http://mirror.lan/whisper/ggml-base.en.bin");
  });
});
