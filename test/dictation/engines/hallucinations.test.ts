import { describe, expect, test } from "bun:test";
import {
  collapseRepetitions,
  isPromptEcho,
  removeHallucinations,
} from "../../../src/dictation/engines/hallucinations.ts";

describe("removeHallucinations", () => {
  test.each([
    ["Thank you for watching!", ""],
    ["Thanks for watching.", ""],
    [" you", ""],
    ["You.", ""],
    ["[BLANK_AUDIO]", ""],
    ["[ Silence ]", ""],
    ["♪ ♪", ""],
    ["...", ""],
    ["Subtitles by the Amara.org community", ""],
    ["Please subscribe to my channel.", ""],
    ["Send the report by Friday. Thank you for watching!", "Send the report by Friday."],
    ["[BLANK_AUDIO] Call Anna tomorrow.", "Call Anna tomorrow."],
    ["(laughs) Call Anna *applause* tomorrow (upbeat music).", "Call Anna tomorrow ."],
    ["(music)", ""],
    ["*laughs*", ""],
    // A bracketed number is a reference, not a tag.
    ["See note [1].", "See note [1]."],
    // Real dictation passes untouched.
    ["Thank you for the quick reply.", "Thank you for the quick reply."],
    ["Tell you what, let's meet at five.", "Tell you what, let's meet at five."],
    ["Thank you.", "Thank you."],
    ["The subtitles by Marta need a review.", "The subtitles by Marta need a review."],
  ])("%p → %p", (input, expected) => {
    expect(removeHallucinations(input)).toBe(expected);
  });

  test("drops lone courtesies only when the audio was near-silent", () => {
    expect(removeHallucinations("Thank you.", { quiet: true })).toBe("");
    expect(removeHallucinations("Bye.", { quiet: true })).toBe("");
    expect(removeHallucinations("Bye.")).toBe("Bye.");
  });

  test("returns nothing when the output only echoes the prompt", () => {
    const prompt = "Kubernetes, PostgreSQL, Claude Code, Hono.";
    expect(removeHallucinations("Kubernetes, PostgreSQL, Claude Code.", { prompt })).toBe("");
    expect(removeHallucinations(" PostgreSQL Claude Code Hono", { prompt })).toBe("");
    expect(removeHallucinations("Claude Code", { prompt })).toBe("Claude Code");
    expect(removeHallucinations("Deploy Kubernetes with Hono.", { prompt })).toBe(
      "Deploy Kubernetes with Hono.",
    );
  });
});

describe("collapseRepetitions", () => {
  test.each([
    ["I think I think I think we should go", "I think we should go"],
    ["Thank you. Thank you. Thank you. Thank you.", "Thank you."],
    ["the the the the the the end", "the end"],
    ["a b c a b c a b c", "a b c"],
    ["no no no", "no no no"], // emphasis, not a loop
    ["we will, we will rock you", "we will, we will rock you"],
  ])("%p → %p", (input, expected) => {
    expect(collapseRepetitions(input)).toBe(expected);
  });

  test("handles a long loop quickly", () => {
    const loop = `${"and then we went to the shop ".repeat(500)}end`;
    const started = performance.now();
    expect(collapseRepetitions(loop)).toBe("and then we went to the shop end");
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe("isPromptEcho", () => {
  test("needs at least two prompt terms in a row", () => {
    expect(isPromptEcho("Hono Kubernetes", "Kubernetes, Hono")).toBe(false);
    expect(isPromptEcho("Kubernetes Hono", "Kubernetes, Hono")).toBe(true);
    expect(isPromptEcho("Kubernetes", "Kubernetes, Hono")).toBe(false);
  });
});
