import { describe, expect, test } from "bun:test";
import {
  buildWhisperPrompt,
  DEFAULT_PROMPT_BUDGET,
  estimateTokens,
  WHISPER_PROMPT_TOKENS,
} from "../../../src/dictation/engines/prompt.ts";

describe("estimateTokens", () => {
  test("errs high: 3 bytes per token, so CJK counts a token per character", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("Kubernetes")).toBe(4);
    expect(estimateTokens("東京都")).toBe(3);
  });
});

describe("buildWhisperPrompt", () => {
  test("lists the terms as a glossary sentence, in order, without duplicates or blanks", () => {
    expect(buildWhisperPrompt(["Kubernetes", "  PostgreSQL ", "", "kubernetes", "Claude  Code"])).toEqual({
      prompt: "Kubernetes, PostgreSQL, Claude Code.",
      included: ["Kubernetes", "PostgreSQL", "Claude Code"],
      omitted: [],
    });
  });

  test("is empty without terms", () => {
    expect(buildWhisperPrompt([]).prompt).toBe("");
  });

  test("stays within the budget and reports what did not fit", () => {
    const terms = Array.from({ length: 400 }, (_, i) => `Term${i}`);
    const { prompt, included, omitted } = buildWhisperPrompt(terms);
    expect(estimateTokens(prompt)).toBeLessThanOrEqual(DEFAULT_PROMPT_BUDGET);
    expect(DEFAULT_PROMPT_BUDGET).toBeLessThan(WHISPER_PROMPT_TOKENS);
    expect(included[0]).toBe("Term0");
    expect(included.length + omitted.length).toBe(400);
    expect(omitted.length).toBeGreaterThan(0);
    // Nearly full: one more term would not have fitted.
    expect(estimateTokens(`${prompt.slice(0, -1)}, Term999.`)).toBeGreaterThan(DEFAULT_PROMPT_BUDGET);
  });

  test("skips a term too long for what is left but keeps filling with shorter ones", () => {
    const { included, omitted } = buildWhisperPrompt(["alpha", "x".repeat(40), "beta"], 10);
    expect(included).toEqual(["alpha", "beta"]);
    expect(omitted).toEqual(["x".repeat(40)]);
  });
});
