import { describe, expect, test } from "bun:test";
import {
  buildWhisperPrompt,
  combinePrompt,
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

describe("combinePrompt", () => {
  test("puts the glossary first and the caller's text last, where whisper reads it as just said", () => {
    expect(combinePrompt("The meeting went long.", ["Kubernetes", "Grafana"])).toBe(
      "Kubernetes, Grafana. The meeting went long.",
    );
  });

  test("keeps the end of a long prompt within half the budget, and the glossary within the rest", () => {
    const long = Array.from({ length: 400 }, (_, i) => `word${i}`).join(" ");
    const terms = Array.from({ length: 200 }, (_, i) => `Term${i}`);
    const prompt = combinePrompt(long, terms, 100);
    expect(estimateTokens(prompt)).toBeLessThanOrEqual(100);
    expect(prompt).toEndWith("word399");
    expect(prompt).toStartWith("Term0, Term1");
  });

  test("without vocabulary it is the caller's text alone", () => {
    expect(combinePrompt("  hello   there ", [])).toBe("hello there");
  });
});
