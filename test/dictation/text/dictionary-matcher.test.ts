import { describe, expect, test } from "bun:test";
import { compileDictionary, type DictionaryEntry } from "../../../src/dictation/text/dictionary-matcher.ts";

const entries = (pairs: ReadonlyArray<readonly [string, string]>): DictionaryEntry[] =>
  pairs.map(([key, value], index) => ({ id: index + 1, key, value }));

const replace = (pairs: ReadonlyArray<readonly [string, string]>, text: string): string =>
  compileDictionary(entries(pairs)).apply(text).text;

describe("compileDictionary: the case at a sentence's start", () => {
  const ahead = [["go forward", "go ahead"]] as const;

  test("a replacement that starts a sentence keeps its capital", () => {
    expect(replace(ahead, "Go forward ten meters")).toBe("Go ahead ten meters");
    expect(replace(ahead, "Stop. Go forward ten meters! Go forward?")).toBe(
      "Stop. Go ahead ten meters! Go ahead?",
    );
  });

  test("mid-sentence it is written as the value is", () => {
    expect(replace(ahead, "Then go forward ten meters")).toBe("Then go ahead ten meters");
    expect(replace(ahead, "Then Go Forward ten meters")).toBe("Then go ahead ten meters");
  });

  test("after a new line, a sentence starts again", () => {
    expect(replace(ahead, "First line\nGo forward")).toBe("First line\nGo ahead");
    expect(replace(ahead, "First line\n  Go forward")).toBe("First line\n  Go ahead");
  });

  test("a value with a capital of its own, ALL-CAPS or not, stays as written", () => {
    expect(replace([["nasa", "NASA"]], "Nasa launched")).toBe("NASA launched");
    expect(replace([["iphone", "iPhone"]], "Iphone sales rose")).toBe("iPhone sales rose");
    expect(replace([["mcdonalds", "McDonald's"]], "Mcdonalds opened. Mcdonalds closed")).toBe(
      "McDonald's opened. McDonald's closed",
    );
  });
});

describe("compileDictionary: matching", () => {
  test("the longest key wins at a position", () => {
    const pairs = [
      ["new york", "NY"],
      ["new york city", "NYC"],
      ["new", "fresh"],
    ] as const;
    expect(replace(pairs, "new york city and new york and new")).toBe("NYC and NY and fresh");
  });

  test("keys match whole words only", () => {
    const pairs = [["cat", "dog"]] as const;
    expect(replace(pairs, "cat category concat cats bobcat")).toBe("dog category concat cats bobcat");
    expect(replace(pairs, "Cat. (cat) cat's cat-like")).toBe("Dog. (dog) dog's dog-like");
  });

  test("a longer key that stops mid-word falls back to the shorter one", () => {
    const pairs = [
      ["new york", "NY"],
      ["new york city", "NYC"],
    ] as const;
    expect(replace(pairs, "new york cityscape")).toBe("NY cityscape");
  });

  test("matching is case-insensitive and the value is inserted as written", () => {
    expect(replace([["nasa", "NASA"]], "Nasa and NASA and nAsA")).toBe("NASA and NASA and NASA");
  });

  test("accented letters are word characters and fold with their case", () => {
    const pairs = [
      ["café", "coffee"],
      ["caf", "X"],
    ] as const;
    // The first word starts a sentence: its capital stays (see the next group).
    expect(replace(pairs, "Café CAFÉ cafe café")).toBe("Coffee coffee cafe coffee");
    expect(replace([["resume", "CV"]], "my résumé and my resume")).toBe("my résumé and my CV");
  });

  test("composed and decomposed accents are the same letter", () => {
    expect(replace([["café", "coffee"]], "one cafe\u0301 please")).toBe("one coffee please");
  });

  test("case folding covers ß and the Greek final sigma", () => {
    expect(replace([["straße", "street"]], "the STRASSE")).toBe("the street");
    expect(replace([["ΟΔΟΣ", "road"]], "οδος")).toBe("road");
  });

  test("keys in Chinese, Japanese, Korean and Thai match inside running text", () => {
    const pairs = [
      ["東京", "Tokyo"],
      ["コーヒー", "coffee"],
      ["서울", "Seoul"],
      ["สวัสดี", "hello"],
    ] as const;
    expect(replace(pairs, "我在東京工作")).toBe("我在Tokyo工作");
    expect(replace(pairs, "コーヒーを飲む")).toBe("coffeeを飲む");
    expect(replace(pairs, "서울에서 만나요")).toBe("Seoul에서 만나요");
    expect(replace(pairs, "คำว่าสวัสดีครับ")).toBe("คำว่าhelloครับ");
  });

  test("a Latin key is still a whole word next to Chinese characters", () => {
    expect(replace([["iphone", "iPhone"]], "我用iphone手机, not iphones")).toBe(
      "我用iPhone手机, not iphones",
    );
  });

  test("multi-word keys tolerate any whitespace between their words", () => {
    expect(replace([["new york", "NY"]], "new   york, New\nYork, new\tyork")).toBe("NY, NY, NY");
    expect(replace([["  new   york ", "NY"]], "new york")).toBe("NY");
  });

  test("keys with punctuation match exactly that punctuation", () => {
    const pairs = [
      ["c++", "C++"],
      ["node.js", "Node.js"],
    ] as const;
    expect(replace(pairs, "c++ and node.js, not node js or nodexjs")).toBe(
      "C++ and Node.js, not node js or nodexjs",
    );
  });
});

describe("compileDictionary: replacement", () => {
  test("a replacement's output is never matched again", () => {
    const pairs = [
      ["a", "b"],
      ["b", "c"],
    ] as const;
    expect(replace(pairs, "a")).toBe("b");
    expect(replace(pairs, "a b")).toBe("b c");
  });

  test("values are inserted literally, with no $& or $1 expansion", () => {
    expect(replace([["price", "$& costs $1 or $$"]], "the price")).toBe("the $& costs $1 or $$");
  });

  test("counts hits per entry id", () => {
    const matcher = compileDictionary([
      { id: 7, key: "cat", value: "dog" },
      { id: 9, key: "sun", value: "moon" },
      { id: 11, key: "unused", value: "x" },
    ]);
    const result = matcher.apply("cat sun cat Cat");
    expect(result.text).toBe("dog moon dog dog");
    expect([...result.hits]).toEqual([
      [7, 3],
      [9, 1],
    ]);
  });

  test("returns the text unchanged, with no hits, when nothing matches", () => {
    const text = "nothing to see here";
    const result = compileDictionary(entries([["cat", "dog"]])).apply(text);
    expect(result.text).toBe(text);
    expect(result.hits.size).toBe(0);
    expect(compileDictionary([]).apply(text).text).toBe(text);
  });

  test("the first of two keys that fold alike wins and blank keys are ignored", () => {
    const matcher = compileDictionary(
      entries([
        ["NASA", "first"],
        ["nasa", "second"],
        ["   ", "blank"],
      ]),
    );
    expect(matcher.size).toBe(1);
    expect(matcher.apply("nasa").text).toBe("first");
  });
});

/** Deterministic PRNG (mulberry32) so a failure reproduces. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORD_CHAR = /[[\p{L}\p{M}\p{N}_]--[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\p{sc=Thai}]]/v;
const escapeRegExp = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|/]/gu, "\\$&");

interface ReferenceKey {
  entry: DictionaryEntry;
  pattern: RegExp;
  startsWord: boolean;
  endsWord: boolean;
}

/**
 * The obvious reference: at each position, try every key (one sticky, case-insensitive regex per
 * key, whitespace as \s+), require word boundaries only where the key starts or ends with a word
 * character, keep the longest match (the earliest entry on ties), copy it, move past it. Keys are
 * bucketed by first letter only to keep the test fast.
 */
function referenceApply(list: readonly DictionaryEntry[], text: string) {
  const buckets = new Map<string, ReferenceKey[]>();
  for (const entry of list) {
    const key = entry.key.trim();
    if (key === "") continue;
    const first = key.charAt(0).toLowerCase();
    const candidate = {
      entry,
      pattern: new RegExp(key.split(/\s+/u).map(escapeRegExp).join(String.raw`\s+`), "iuy"),
      startsWord: WORD_CHAR.test(key.charAt(0)),
      endsWord: WORD_CHAR.test(key.charAt(key.length - 1)),
    };
    buckets.set(first, [...(buckets.get(first) ?? []), candidate]);
  }
  const isWordAt = (index: number): boolean =>
    index >= 0 && index < text.length && WORD_CHAR.test(text.charAt(index));
  const hits = new Map<number, number>();
  let out = "";
  let copied = 0;
  for (let position = 0; position < text.length; ) {
    let best: { entry: DictionaryEntry; end: number } | null = null;
    for (const candidate of buckets.get(text.charAt(position).toLowerCase()) ?? []) {
      if (candidate.startsWord && isWordAt(position - 1)) continue;
      candidate.pattern.lastIndex = position;
      const match = candidate.pattern.exec(text);
      if (match === null) continue;
      const end = position + match[0].length;
      if (candidate.endsWord && isWordAt(end)) continue;
      if (best === null || end > best.end) best = { entry: candidate.entry, end };
    }
    if (best === null) {
      position += 1;
      continue;
    }
    // At a sentence's start a capital in the text stays, unless the value's first word has its own.
    const before = text.slice(Math.max(0, position - 16), position);
    const startsSentence = position === 0 || /(?:[.!?…]\s+|\n[ \t]*)$/u.test(before);
    const capital = /^\p{Lu}/u.test(text.charAt(position));
    const value = best.entry.value;
    const ownCapital = /\p{Lu}/u.test(value.split(/\s/u)[0] ?? "");
    const written =
      startsSentence && capital && !ownCapital ? value.charAt(0).toUpperCase() + value.slice(1) : value;
    out += text.slice(copied, position) + written;
    hits.set(best.entry.id, (hits.get(best.entry.id) ?? 0) + 1);
    copied = best.end;
    position = best.end;
  }
  return { text: out + text.slice(copied), hits };
}

describe("compileDictionary against a reference implementation", () => {
  const next = random(20260601);
  const pick = <T>(items: readonly T[]): T => {
    const item = items[Math.floor(next() * items.length)];
    if (item === undefined) throw new Error("empty list");
    return item;
  };
  const letters = [..."abcdefghijklmnopqrstuvwxyzéñüçø"];
  const han = [..."東京大阪日本語中文学生先生電話会社"];
  const makeWord = (): string => {
    const roll = next();
    if (roll < 0.1) return Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(han)).join("");
    if (roll < 0.14) return pick(["c++", "node.js", "a-b", ".net", "x/y", "e.g."]);
    return Array.from({ length: 1 + Math.floor(next() * 6) }, () => pick(letters)).join("");
  };
  const pool = Array.from({ length: 3000 }, makeWord);
  const keyPool = pool.slice(0, 1500);
  const casing = (word: string): string => {
    const roll = next();
    if (roll < 0.15) return word.toUpperCase();
    if (roll < 0.3) return word.charAt(0).toUpperCase() + word.slice(1);
    return word;
  };

  const dictionary: DictionaryEntry[] = Array.from({ length: 10_000 }, (_, index) => {
    const words = Array.from({ length: 1 + Math.floor(next() * 3) }, () => casing(pick(keyPool)));
    const value = pick(["$&", "$1", "", pick(keyPool), `V${index}`, `<${index}>`]);
    return { id: index + 1, key: words.join(next() < 0.1 ? "  " : " "), value };
  });
  const matcher = compileDictionary(dictionary);
  const separators = [" ", " ", " ", "  ", ", ", ". ", "\n", "\t", "", "-", "'"];

  test("gives the same text and hits on 60 random texts with a 10k-key dictionary", () => {
    let totalHits = 0;
    for (let round = 0; round < 60; round += 1) {
      const parts: string[] = [];
      for (let index = 0; index < 80; index += 1) parts.push(casing(pick(pool)), pick(separators));
      const text = parts.join("");
      const expected = referenceApply(dictionary, text);
      const actual = matcher.apply(text);
      expect(actual.text).toBe(expected.text);
      expect([...actual.hits].sort((a, b) => a[0] - b[0])).toEqual(
        [...expected.hits].sort((a, b) => a[0] - b[0]),
      );
      for (const count of actual.hits.values()) totalHits += count;
    }
    // Guard against a vacuous comparison: the random texts must exercise real replacements.
    expect(totalHits).toBeGreaterThan(500);
  });
});
