import { describe, expect, test } from "bun:test";
import { languageCode } from "../../../../src/dictation/engines/languages.ts";
import {
  audioCtxFor,
  resolveLanguage,
  whisperParams,
} from "../../../../src/dictation/engines/whisper/params.ts";

const seconds = (s: number) => Math.round(s * 16_000);

describe("audioCtxFor", () => {
  test.each([
    [0.5, 128], // floor: very short clips still get 2.56 s of context
    [2, 160], // 100 positions + 32 margin → next multiple of 32
    [4.8, 288], // 240 + 32 = 272 → 288
    [10, 544],
    [28, 1440],
    [29, 0], // 1450 + 32 rounds up past 1500: the full window
    [30, 0],
    [95, 0], // longer than one window: every window keeps full context
  ])("%d s of audio → audio_ctx %d", (duration, expected) => {
    expect(audioCtxFor(seconds(duration))).toBe(expected);
  });

  test("always covers the whole clip plus a margin", () => {
    for (let s = 0.1; s < 27; s += 0.37) {
      const ctx = audioCtxFor(seconds(s));
      expect(ctx * 0.02).toBeGreaterThanOrEqual(s + 0.6);
      expect(ctx % 32).toBe(0);
    }
  });
});

describe("resolveLanguage", () => {
  test("defaults to detection on multilingual models and English otherwise", () => {
    expect(resolveLanguage(undefined, true)).toBe("auto");
    expect(resolveLanguage("AUTO", false)).toBe("en");
    expect(resolveLanguage(" De ", true)).toBe("de");
  });

  test.each([
    ["pt-br", true, "pt"],
    ["pt_BR", true, "pt"],
    ["en-US", false, "en"],
    ["EN-gb", false, "en"],
    ["zh-hant", true, "zh"],
  ])(
    "a tag with a region, %s, is its primary language (multilingual: %p) → %s",
    (tag, multilingual, code) => {
      expect(resolveLanguage(tag, multilingual)).toBe(code);
    },
  );

  test.each([
    ["xx", true],
    ["german", true],
    ["de", false],
    ["de-DE", false],
    ["xx-yy", true],
  ])("refuses %s (multilingual: %p) with 422 unsupported_language", (language, multilingual) => {
    expect(() => resolveLanguage(language, multilingual)).toThrow(
      expect.objectContaining({ status: 422, code: "unsupported_language" }),
    );
  });

  test("maps whisper's language names to codes", () => {
    expect(languageCode("English")).toBe("en");
    expect(languageCode("haitian creole")).toBe("ht");
    expect(languageCode("pt")).toBe("pt");
  });
});

describe("whisperParams", () => {
  const settings = { threads: 3, beamSize: 1, temperatureIncrement: 0.2, maxTokensPerSegment: 0 };

  test("uses greedy decoding, the thread count and the prompt", () => {
    const params = whisperParams(settings, { language: "en", prompt: " Svc, Hono. ", audioCtx: 288 });
    expect(params).toMatchObject({ strategy: 0, n_threads: 3, audio_ctx: 288, initial_prompt: "Svc, Hono." });
  });

  test("switches to beam search and leaves out a blank prompt", () => {
    const params = whisperParams(
      { ...settings, beamSize: 5 },
      { language: "auto", prompt: "  ", audioCtx: 0 },
    );
    expect(params).toMatchObject({ strategy: 1, beam_size: 5, language: "auto" });
    expect(params).not.toHaveProperty("initial_prompt");
  });
});
