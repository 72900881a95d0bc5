import type { FormatStyle } from "../../../formats/style.ts";
import { normalizeWhitespace, stripAsrArtefacts } from "./asr-artefacts.ts";
import { createFillerLexicon, removeFillers } from "./fillers.ts";
import { applyEndPunctuation, capitalizeSentences } from "./sentence-case.ts";
import { convertSpokenPunctuation } from "./spoken-punctuation.ts";
import { collapseStutters } from "./stutters.ts";
import { isWord, render, type Token, tidyTrail, tokenize } from "./transcript-tokens.ts";

export interface CleanupOptions extends FormatStyle {
  /** The user's own fillers, single words or phrases ("you know"), matched case-insensitively. */
  extraFillers: readonly string[];
  /**
   * BCP 47 tag of the transcript, null or absent when unknown. English word lists (spoken
   * punctuation, repetitions, "i" → "I") apply to English or unknown text; fillers that are words
   * elsewhere (English "er" is German "he") only when the language is known.
   */
  language?: string | null;
}

const isEnglishOrUnknown = (language: string | null): boolean =>
  language === null || language === "" || /^en(?:-|$)/iu.test(language);

/** True when something the speaker said is left: a word, a number, or a symbol such as an emoji. */
const hasContent = (tokens: readonly Token[]): boolean =>
  tokens.some((token) => isWord(token) && (token.core !== "" || /[^\p{P}\s]/u.test(token.lead)));

/**
 * Deterministic cleanup of one transcript: engine artefacts, fillers, stutters, spoken
 * punctuation, spacing, capitals and the final mark, in that order. Text that held only fillers
 * or artefacts comes back empty.
 */
export function cleanTranscript(text: string, options: CleanupOptions): string {
  const language = options.language ?? null;
  const english = isEnglishOrUnknown(language);
  let tokens = tokenize(stripAsrArtefacts(normalizeWhitespace(text.normalize("NFC"))));
  if (options.removeFillers) {
    tokens = removeFillers(tokens, createFillerLexicon(language, options.extraFillers));
  }
  tokens = collapseStutters(tokens, english);
  if (options.spokenPunctuation && english) tokens = convertSpokenPunctuation(tokens);
  if (!hasContent(tokens)) return "";
  tokens = tokens.map((token) => (isWord(token) ? { ...token, trail: tidyTrail(token.trail) } : token));
  if (options.capitalize) tokens = capitalizeSentences(tokens, language, english);
  return applyEndPunctuation(render(tokens), options.endPunctuation);
}

export { applyEndPunctuation };
