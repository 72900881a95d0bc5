/**
 * Whisper's initial prompt biases decoding towards the words and style it contains. The decoder keeps
 * at most n_text_ctx/2 = 224 prompt tokens and drops the *oldest* beyond that, so a prompt must fit:
 * otherwise the first (most important) terms are the ones lost.
 *
 * Token counts are estimated without a tokenizer as ceil(UTF-8 bytes / 3): whisper's byte-level BPE
 * averages ~4 bytes per token on English prose, but names and jargon split worse (~3), and CJK text is
 * about one token per 3-byte character. Erring high keeps the prompt inside the real budget.
 */
export const WHISPER_PROMPT_TOKENS = 224;
/** Default budget: the real one less ~10 % for the estimate's error. */
export const DEFAULT_PROMPT_BUDGET = 200;

const encoder = new TextEncoder();

export function estimateTokens(text: string): number {
  return Math.ceil(encoder.encode(text).length / 3);
}

export interface WhisperPrompt {
  /** "" when there are no terms. */
  prompt: string;
  /** Terms in the prompt, in the order given. */
  included: string[];
  /** Terms left out because the budget was spent. */
  omitted: string[];
}

/**
 * A glossary-style prompt ("Kubernetes, PostgreSQL, Anthropic.") from vocabulary terms, most important
 * first: terms are taken in the given order, and one that no longer fits is skipped (a later, shorter
 * one may still fit). Duplicates (ignoring case) and blank terms are dropped. The trailing period
 * nudges whisper towards punctuated output.
 */
export function buildWhisperPrompt(
  terms: readonly string[],
  budget: number = DEFAULT_PROMPT_BUDGET,
): WhisperPrompt {
  const included: string[] = [];
  const omitted: string[] = [];
  const seen = new Set<string>();
  let text = "";
  for (const raw of terms) {
    const term = raw.replace(/\s+/g, " ").trim();
    const key = term.toLowerCase();
    if (!term || seen.has(key)) continue;
    seen.add(key);
    const candidate = text ? `${text}, ${term}` : term;
    if (estimateTokens(`${candidate}.`) > budget) {
      omitted.push(term);
      continue;
    }
    text = candidate;
    included.push(term);
  }
  return { prompt: text ? `${text}.` : "", included, omitted };
}

/** The end of `text` that fits `budget` estimated tokens, cut at a word boundary. */
function tailWithin(text: string, budget: number): string {
  const words = text.replace(/\s+/g, " ").trim().split(" ");
  while (words.length > 0 && estimateTokens(words.join(" ")) > budget) words.shift();
  return words.join(" ");
}

/**
 * A caller's own prompt (the OpenAI API's `prompt`: usually the text before this clip) with the
 * vocabulary: the glossary first, then the caller's text, which whisper reads as the words just
 * before the audio. The caller's text keeps its end, within half the budget; the glossary takes
 * what is left, most important terms first.
 */
export function combinePrompt(
  request: string,
  terms: readonly string[],
  budget: number = DEFAULT_PROMPT_BUDGET,
): string {
  const tail = tailWithin(request, Math.floor(budget / 2));
  const glossary = buildWhisperPrompt(terms, budget - (tail ? estimateTokens(tail) + 1 : 0)).prompt;
  return [glossary, tail].filter(Boolean).join(" ");
}
