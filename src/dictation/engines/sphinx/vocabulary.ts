/**
 * PocketSphinx recognises only words its pronouncing dictionary holds, so a vocabulary term is added
 * as a new word when it can be spelled from words the dictionary already has: compounds ("GitHub" =
 * git + hub), acronyms read letter by letter ("AWS"), digits read one by one ("GPT4"). Anything
 * else ("Kubernetes") would need a grapheme-to-phoneme model, which Debian's pocketsphinx lacks.
 */

const DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
/** Letter names a–z in ARPAbet, for acronyms; the dictionary's "a" is the article (AH), not the letter. */
const LETTERS: Record<string, string> = Object.fromEntries(
  (
    "EY|B IY|S IY|D IY|IY|EH F|JH IY|EY CH|AY|JH EY|K EY|EH L|EH M|EH N|OW|P IY|K Y UW|AA R|EH S|T IY|" +
    "Y UW|V IY|D AH B AH L Y UW|EH K S|W AY|Z IY"
  )
    .split("|")
    .map((phones, i) => [String.fromCharCode(97 + i), phones]),
);
/** Upper-case runs are acronyms; words are Capitalised or lower-case runs; digits stand alone. */
const PARTS = /[A-Z]+(?![a-z])|[A-Z]?[a-z']+|\d/g;
const MAX_ACRONYM = 6;

export type Lookup = (word: string) => string | null;

export type WordPlan =
  | { kind: "known" }
  | { kind: "add"; word: string; phones: string }
  | { kind: "unspellable"; word: string };

function partPhones(part: string, lookup: Lookup): string | null {
  const lower = part.toLowerCase();
  if (/^\d$/.test(part)) return lookup(DIGITS[Number(part)] ?? "");
  const whole = lookup(lower);
  if (whole) return whole;
  if (part === part.toUpperCase() && part.length <= MAX_ACRONYM) {
    const letters = [...lower].map((letter) => LETTERS[letter]);
    return letters.every((p) => p !== undefined) ? letters.join(" ") : null;
  }
  return null;
}

/** What to do with one word of a vocabulary term. */
export function planWord(word: string, lookup: Lookup): WordPlan {
  const key = word.toLowerCase();
  if (lookup(key)) return { kind: "known" };
  const parts = word.match(PARTS) ?? [];
  // The parts must cover the word apart from joining punctuation ("gpt-4", "node.js").
  if (parts.length === 0 || parts.join("").length !== word.replace(/[-_.]/g, "").length) {
    return { kind: "unspellable", word };
  }
  const phones = parts.map((part) => partPhones(part, lookup));
  if (phones.some((p) => p === null)) return { kind: "unspellable", word };
  return { kind: "add", word: key, phones: phones.join(" ") };
}

/** The words of a term, as the decoder writes them (lower case, split on whitespace). */
export const termWords = (term: string): string[] => term.trim().split(/\s+/).filter(Boolean);

/** Restores the vocabulary's spelling ("github actions" → "GitHub Actions") in a lower-case transcript. */
export function applyTermCasing(text: string, terms: readonly string[]): string {
  let out = text;
  for (const term of [...terms].sort((a, b) => b.length - a.length)) {
    const words = termWords(term);
    if (words.length === 0) continue;
    const pattern = words.map((w) => w.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s+");
    out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}])${pattern}(?![\\p{L}\\p{N}])`, "giu"), words.join(" "));
  }
  return out;
}
