/** Unicode facts about writing systems shared by the dictionary matcher and the LLM checks. */

/**
 * Scripts written without spaces between words (Chinese, Japanese, Korean particles, Thai): word
 * boundaries cannot be seen, so each character counts as a word. U+30FC and U+FF70 are the
 * katakana prolonged-sound marks, which Unicode files under the Common script.
 */
export const NO_SPACE_SCRIPTS = String.raw`\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\p{sc=Thai}\u30FC\uFF70`;

const SCRIPTS: ReadonlyArray<readonly [string, RegExp]> = [
  ["Latin", /\p{sc=Latin}/gu],
  ["Cyrillic", /\p{sc=Cyrillic}/gu],
  ["Greek", /\p{sc=Greek}/gu],
  ["Arabic", /\p{sc=Arabic}/gu],
  ["Hebrew", /\p{sc=Hebrew}/gu],
  ["Devanagari", /\p{sc=Devanagari}/gu],
  // Japanese mixes kanji and kana, so they count as one system.
  ["Chinese/Japanese", /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/gu],
  ["Hangul", /\p{sc=Hangul}/gu],
  ["Thai", /\p{sc=Thai}/gu],
];

/** The writing system most of the text's letters belong to, or null with fewer than 4 letters. */
export function dominantScript(text: string): string | null {
  let best: string | null = null;
  let bestCount = 3;
  for (const [name, pattern] of SCRIPTS) {
    const count = text.match(pattern)?.length ?? 0;
    if (count > bestCount) {
      best = name;
      bestCount = count;
    }
  }
  return best;
}

const WORD = new RegExp(
  String.raw`[${NO_SPACE_SCRIPTS}]|[[\p{L}\p{N}]--[${NO_SPACE_SCRIPTS}]][[\p{L}\p{M}\p{N}]--[${NO_SPACE_SCRIPTS}]]*(?:['’]\p{L}+)*`,
  "gv",
);

/** Lower-cased words; each character of a no-space script is a word of its own. */
export const wordsOf = (text: string): string[] => text.toLowerCase().match(WORD) ?? [];
