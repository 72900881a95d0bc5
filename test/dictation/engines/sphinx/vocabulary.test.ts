import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { SPHINX_MODEL_DIR } from "../../../../src/dictation/engines/sphinx/ffi.ts";
import { applyTermCasing, planWord } from "../../../../src/dictation/engines/sphinx/vocabulary.ts";

// The real pronouncing dictionary the engine uses (pocketsphinx-en-us), as a plain lookup.
const dictionary = new Map<string, string>();
for (const line of readFileSync(`${SPHINX_MODEL_DIR}/cmudict-en-us.dict`, "utf8").split("\n")) {
  const space = line.indexOf(" ");
  if (space > 0 && !dictionary.has(line.slice(0, space)))
    dictionary.set(line.slice(0, space), line.slice(space + 1));
}
const lookup = (word: string) => dictionary.get(word) ?? null;

describe("planWord", () => {
  test.each([
    ["GitHub", { kind: "known" }],
    ["meters", { kind: "known" }],
    ["TenMeters", { kind: "add", word: "tenmeters", phones: "T EH N M IY T ER Z" }],
    ["AWS", { kind: "add", word: "aws", phones: "EY D AH B AH L Y UW EH S" }],
    ["GPT-4", { kind: "add", word: "gpt-4", phones: "JH IY P IY T IY F AO R" }],
    ["Kubernetes", { kind: "unspellable", word: "Kubernetes" }],
    ["C++", { kind: "unspellable", word: "C++" }],
    ["café", { kind: "unspellable", word: "café" }],
  ])("%s → %o", (word, plan) => {
    expect(planWord(word, lookup)).toEqual(plan as ReturnType<typeof planWord>);
  });
});

describe("applyTermCasing", () => {
  test("restores the vocabulary's spelling of whole words and phrases", () => {
    const terms = ["GitHub Actions", "GitHub", "AWS"];
    expect(applyTermCasing("push to github actions on aws", terms)).toBe("push to GitHub Actions on AWS");
    expect(applyTermCasing("githubber awsome", terms)).toBe("githubber awsome");
  });
});
