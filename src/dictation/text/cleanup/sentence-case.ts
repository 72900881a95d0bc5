import type { FormatStyle } from "../../../formats/style.ts";
import { isWord, type Token, type WordToken } from "./transcript-tokens.ts";

/** Abbreviations whose period does not end a sentence ("e.g. this", "Dr. Smith"). */
const ABBREVIATIONS = new Set(
  "mr mrs ms dr prof sr jr st vs etc approx incl dept est fig inc ltd".split(" "),
);
const INITIALISM = /^(?:\p{L}\.)+\p{L}$/u;
const CLOSERS = /["”’)\]»]+$/u;
const PRONOUN_I = /^i(?:['’](?:m|ve|ll|d))?$/u;

function endsSentence(token: WordToken): boolean {
  const marks = token.trail.replace(CLOSERS, "");
  if (/[?!？！。]$/u.test(marks)) return true;
  if (!marks.endsWith(".") || marks.endsWith("..")) return false;
  return !ABBREVIATIONS.has(token.core.toLowerCase()) && !INITIALISM.test(token.core);
}

/**
 * Only plain lower-case words are raised: "iPhone", "eBay", "example.com" and "user@host" are
 * written that way on purpose.
 */
const capitalizable = (core: string): boolean =>
  /^\p{Ll}/u.test(core) && core === core.toLowerCase() && !/[@/.]/u.test(core);

/** A language tag usable for locale-aware upper-casing (Turkish "i" → "İ"), or undefined. */
function caseLocale(language: string | null): string | undefined {
  if (!language) return undefined;
  try {
    "i".toLocaleUpperCase(language);
    return language;
  } catch {
    return undefined;
  }
}

function upperFirst(core: string, locale: string | undefined): string {
  const first = String.fromCodePoint(core.codePointAt(0) ?? 0);
  return first.toLocaleUpperCase(locale) + core.slice(first.length);
}

/**
 * Capitalises the first word of every sentence and line, and the English pronoun "I" ("i'm" →
 * "I'm"). Never lower-cases anything: the engine's capitals are kept.
 */
export function capitalizeSentences(
  tokens: readonly Token[],
  language: string | null,
  english: boolean,
): Token[] {
  const locale = caseLocale(language);
  let atStart = true;
  return tokens.map((token): Token => {
    if (!isWord(token)) {
      atStart = true;
      return token;
    }
    if (token.core === "") return token;
    let core = token.core;
    if (atStart && capitalizable(core)) core = upperFirst(core, locale);
    else if (english && PRONOUN_I.test(core)) core = `I${core.slice(1)}`;
    atStart = endsSentence(token);
    return core === token.core ? token : { ...token, core };
  });
}

const NO_SPACE_SCRIPT_END = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]$/u;

/** Applies a format's `endPunctuation` to finished text; also used after the LLM pass. */
export function applyEndPunctuation(text: string, mode: FormatStyle["endPunctuation"]): string {
  if (mode === "keep" || text === "") return text;
  const closers = CLOSERS.exec(text)?.[0] ?? "";
  const body = text.slice(0, text.length - closers.length);
  if (mode === "strip") {
    return /(?<!\.)[.。]$/u.test(body) ? body.slice(0, -1) + closers : text;
  }
  if (/[.?!…。？！:]$/u.test(body)) return text;
  if (/[,;，；、]$/u.test(body)) return `${body.slice(0, -1)}${endMark(body.slice(0, -1))}${closers}`;
  // A text ending in an emoji or symbol reads as finished; a period after it looks like a typo.
  if (!/[\p{L}\p{N}\p{M}]$/u.test(body)) return text;
  // The mark goes after closing quotes and brackets, so quoted words stay exactly as dictated.
  return text + endMark(body);
}

const endMark = (body: string): string => (NO_SPACE_SCRIPT_END.test(body) ? "。" : ".");
