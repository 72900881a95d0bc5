import { folded, isWord, type Token, type WordToken } from "./transcript-tokens.ts";

/**
 * Words whose immediate repetition is a disfluency ("I I think", "the the"). Content words are
 * left alone because their doubles are usually meant ("test test", "very very", "bye bye"), and so
 * are function words with common legitimate doubles: "had had", "that that", "is is" ("what it is
 * is"), "her her" ("give her her keys") and phrasal-verb particles ("come in in five minutes").
 */
const STUTTER_WORDS = new Set(
  [
    "i i'm i've i'll i'd me my we we're our us you you're your he his him she it it's its",
    "they they're them their a an the and but or if to of at for with from as",
    "this these those what when where why how who which",
  ]
    .join(" ")
    .split(" "),
);

/**
 * Prefixes that are morphemes: "re-read", "co-counsel" and "pre-prepared" are words, not
 * stutters, even though the fragment starts the word after it.
 */
const MORPHEMES = new Set([
  ..."a bi co de di en em ex il im in ir mi no on re un up".split(" "),
  ..."all dis mid mis neo non off out pre pro sub tri uni".split(" "),
]);

const FRAGMENT = /^\p{L}+$/u;

const withCaseOf = (source: string, word: string): string => {
  const first = source.charAt(0);
  return first !== first.toLowerCase() ? word.charAt(0).toUpperCase() + word.slice(1) : word;
};

/** "th-th-this" → "this", "I-I" → "I", "b-but" → "but"; "re-read", "so-so", "bye-bye" stay. */
function collapseHyphenStutter(core: string, english: boolean): string {
  const parts = core.split("-");
  const last = parts.pop();
  const first = parts[0];
  if (last === undefined || first === undefined || !FRAGMENT.test(last)) return core;
  const fragment = first.toLowerCase();
  const target = last.toLowerCase();
  if (!parts.every((part) => part.toLowerCase() === fragment && FRAGMENT.test(part))) return core;
  if (!target.startsWith(fragment)) return core;
  const repeated = parts.length >= 2;
  const wholeWord = fragment === target && english && STUTTER_WORDS.has(target);
  const partial = fragment !== target && fragment.length <= 3 && !MORPHEMES.has(fragment);
  return repeated || wholeWord || partial ? withCaseOf(first, last) : core;
}

const bare = (token: Token | undefined): token is WordToken =>
  isWord(token) && token.core !== "" && token.lead === "" && token.trail === "";

/** A cut-off word the speaker restarts: "I- I think", "wh- what". */
const isRestart = (token: WordToken, next: Token | undefined): boolean =>
  /^[-–—]$/u.test(token.trail) &&
  FRAGMENT.test(token.core) &&
  isWord(next) &&
  next.lead === "" &&
  folded(next).startsWith(folded(token));

const sameWord = (a: Token | undefined, b: Token | undefined): boolean =>
  isWord(a) && isWord(b) && a.core !== "" && folded(a) === folded(b);

/**
 * Collapses stutters and immediate repetitions. Repetitions only count with nothing between the
 * words: "I, I think" keeps its comma and both words. `english` gates the English word list.
 */
export function collapseStutters(source: readonly Token[], english: boolean): Token[] {
  const tokens = [...source];
  const out: Token[] = [];
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index];
    if (!isWord(token)) {
      if (token) out.push(token);
      continue;
    }
    const next = tokens[index + 1];
    if (isRestart(token, next) && isWord(next)) {
      tokens[index + 1] = { ...next, lead: token.lead };
      continue;
    }
    const core = collapseHyphenStutter(token.core, english);
    const previous = out.at(-1);
    if (english && repeatsPrevious(previous, token, core)) {
      if (isWord(previous)) previous.trail = token.trail;
      continue;
    }
    if (english && repeatsBigram(out, token, next)) {
      const kept = out.at(-1);
      if (isWord(kept) && isWord(next)) kept.trail = next.trail;
      index += 1;
      continue;
    }
    out.push(core === token.core ? token : { ...token, core });
  }
  return out;
}

function repeatsPrevious(previous: Token | undefined, token: WordToken, core: string): boolean {
  if (!isWord(previous) || previous.trail !== "" || token.lead !== "") return false;
  const value = core.toLowerCase();
  return folded(previous) === value && STUTTER_WORDS.has(value);
}

/** "I was I was going" → "I was going", "to the to the store" → "to the store". */
function repeatsBigram(out: readonly Token[], token: WordToken, next: Token | undefined): boolean {
  const first = out.at(-2);
  const second = out.at(-1);
  if (!bare(second) || !isWord(first) || first.trail !== "" || token.lead !== "" || token.trail !== "") {
    return false;
  }
  if (!isWord(next) || next.lead !== "") return false;
  return sameWord(first, token) && sameWord(second, next) && STUTTER_WORDS.has(folded(first));
}
