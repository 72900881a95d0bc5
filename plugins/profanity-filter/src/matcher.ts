/** Word (lowercase, single spaces) → the alternatives that replace it, in turn. */
export type Replacements = ReadonlyMap<string, readonly string[]>;

export interface Matcher {
  /** Replaces every listed word or phrase in one pass, so a replacement is never replaced again. */
  apply(text: string, options: { preserveCase: boolean }): string;
}

/** The key a word is stored under: trimmed, lowercase, inner whitespace as one space. */
export const normaliseWord = (word: string): string => word.trim().replace(/\s+/g, " ").toLowerCase();

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Mirrors the matched word's casing onto the replacement: SHIT → SHOOT, Damn → Darn. */
export function matchCase(matched: string, replacement: string): string {
  const hasLetters = matched.toLowerCase() !== matched.toUpperCase();
  if (hasLetters && matched === matched.toUpperCase() && matched.length > 1) return replacement.toUpperCase();
  const first = matched.charAt(0);
  if (first !== first.toLowerCase()) return replacement.charAt(0).toUpperCase() + replacement.slice(1);
  return replacement;
}

/**
 * Compiles the list into one regular expression: longest phrases first, whole words only by
 * Unicode letters and digits (so "class" never matches "ass" and "Straße" works), any whitespace
 * between the words of a phrase.
 */
export function compileMatcher(replacements: Replacements): Matcher {
  const words = [...replacements.entries()]
    .filter(([word, alternatives]) => word.length > 0 && alternatives.length > 0)
    .map(([word]) => word)
    .sort((a, b) => b.length - a.length);
  if (words.length === 0) return { apply: (text) => text };
  const alternation = words.map((word) => word.split(" ").map(escapeRegExp).join("\\s+")).join("|");
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alternation})(?![\\p{L}\\p{N}_])`, "giu");
  return {
    apply(text, { preserveCase }) {
      const turns = new Map<string, number>();
      return text.replace(pattern, (matched) => {
        const key = normaliseWord(matched);
        const alternatives = replacements.get(key);
        if (!alternatives || alternatives.length === 0) return matched;
        const turn = turns.get(key) ?? 0;
        turns.set(key, turn + 1);
        const replacement = alternatives[turn % alternatives.length] ?? matched;
        return preserveCase ? matchCase(matched, replacement) : replacement;
      });
    },
  };
}
