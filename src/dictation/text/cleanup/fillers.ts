import { folded, isWord, mergeMark, type Token } from "./transcript-tokens.ts";

/**
 * Hesitation sounds, with their stretched spellings (umm, uhh, hmmm). Only sounds that are never
 * words: "like", "so", "you know" carry meaning often enough that removing them is opt-in
 * (`extraFillers`), and "uh-huh" means yes.
 */
const HESITATION = /^(?:u+m+|u+h+m*|e+r+m+|a+h+|h+m+|m{2,}|m+-?h+m+|mhm+)$/u;

/**
 * Fillers that are words in some languages apply only there: English "er" is German "he", so it
 * is removed only when the language is known to be English.
 */
const BY_LANGUAGE: Record<string, readonly string[]> = {
  en: ["er"],
  de: ["äh", "ähm", "öh", "öhm", "ehm"],
  fr: ["euh", "heu"],
  nl: ["ehm", "uhm"],
  it: ["ehm"],
  es: ["ehm"],
  pt: ["ahn", "hã"],
};

const SENTENCE_END = /[.?!]["”’)\]]*$/u;
const KEPT_MARK = /[.?!]$/u;
const CLOSER = /[)\]"”’»]/u;

export interface FillerLexicon {
  /** Number of tokens the filler starting at `index` spans, 0 when there is none. */
  matchAt(tokens: readonly Token[], index: number): number;
}

/** `language` is a BCP 47 tag or null when unknown; `extra` holds the user's own fillers. */
export function createFillerLexicon(language: string | null, extra: readonly string[]): FillerLexicon {
  const base = (language ?? "").toLowerCase().split("-")[0] ?? "";
  const single = new Set(BY_LANGUAGE[base] ?? []);
  const phrases: string[][] = [];
  for (const entry of extra) {
    const words = entry.toLowerCase().normalize("NFC").split(/\s+/u).filter(Boolean);
    if (words.length === 1 && words[0] !== undefined) single.add(words[0]);
    else if (words.length > 1) phrases.push(words);
  }
  phrases.sort((a, b) => b.length - a.length);

  const isSingleFiller = (token: Token | undefined): boolean => {
    if (!isWord(token) || token.core === "") return false;
    const value = folded(token);
    return HESITATION.test(value) || single.has(value);
  };

  const phraseFits = (tokens: readonly Token[], index: number, phrase: readonly string[]): boolean =>
    phrase.every((expected, offset) => {
      const token = tokens[index + offset];
      if (!isWord(token) || folded(token) !== expected) return false;
      return (offset === 0 || token.lead === "") && (offset === phrase.length - 1 || token.trail === "");
    });

  return {
    matchAt(tokens, index) {
      const phrase = phrases.find((candidate) => phraseFits(tokens, index, candidate));
      if (phrase) return phrase.length;
      return isSingleFiller(tokens[index]) ? 1 : 0;
    },
  };
}

const startsSentence = (tokens: readonly Token[], index: number): boolean => {
  const before = tokens[index - 1];
  return !isWord(before) || SENTENCE_END.test(before.trail);
};

/**
 * Drops fillers and keeps the sentence intact: a sentence mark on the filler ("okay, um.") moves to
 * the word before it, and the commas that fenced the filler off go with it (", um," in the middle
 * of a clause), except the comma after a sentence's first word ("So, um, I think" → "So, I think").
 */
export function removeFillers(tokens: readonly Token[], lexicon: FillerLexicon): Token[] {
  const out: Token[] = [];
  let carriedLead = "";
  for (let index = 0; index < tokens.length; ) {
    const span = lexicon.matchAt(tokens, index);
    const token = tokens[index];
    if (span === 0 || !isWord(token)) {
      if (isWord(token) && carriedLead !== "") {
        out.push({ ...token, lead: carriedLead + token.lead });
        carriedLead = "";
      } else if (token) out.push(token);
      index += 1;
      continue;
    }
    const last = tokens[index + span - 1];
    const trail = isWord(last) ? last.trail : "";
    // "(um)" goes as a whole; an unclosed opener ("\"um, hello") moves on to the next word.
    if (!CLOSER.test(trail)) carriedLead += token.lead;
    dropFillerMarks(out, trail);
    index += span;
  }
  return out;
}

function dropFillerMarks(out: Token[], trail: string): void {
  const previousIndex = out.length - 1;
  const previous = out[previousIndex];
  if (!isWord(previous)) return;
  const mark = trail.replace(/\.{2,}|…/gu, "").match(KEPT_MARK)?.[0];
  if (mark !== undefined) {
    if (!SENTENCE_END.test(previous.trail)) previous.trail = mergeMark(previous.trail, mark);
    return;
  }
  const fenced = trail.startsWith(",") && previous.trail.endsWith(",");
  if (fenced && !startsSentence(out, previousIndex)) previous.trail = previous.trail.slice(0, -1);
}
