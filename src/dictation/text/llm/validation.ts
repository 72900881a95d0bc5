import { dominantScript, wordsOf } from "../cleanup/writing-systems.ts";

/**
 * Checks that an LLM reply is an edit of the transcript and not something else. Cheap lexical
 * heuristics, tuned to reject rather than risk a wrong text: a rejected reply only costs the
 * polish, because the pipeline falls back to the deterministic text.
 */

export type RejectionReason =
  | "rejected_answer"
  | "rejected_preamble"
  | "rejected_length"
  | "rejected_language";

export type Verdict = { ok: true; text: string } | { ok: false; reason: RejectionReason; detail: string };

/**
 * Allowed reply length, in characters, relative to the input: cleanup removes fillers and
 * self-corrections (so down to half) and a format may add line breaks or list markers (so up to
 * 1.6×). Short inputs get an absolute slack, where one added word is already a large ratio.
 */
export const LENGTH_RATIO = { min: 0.5, max: 1.6, slackChars: 20 } as const;

/** Share of the reply's words that may be absent from the transcript before it counts as an answer. */
export const MAX_NEW_WORD_SHARE = 0.5;

const COURTESY = /^(?:sure|certainly|of course|absolutely|okay|ok|alright|all right|got it|no problem)\b/iu;
const PRESENTS =
  /^(?:here(?:'s|’s| is| are)|below is|i(?:'ve|’ve| have) (?:cleaned|edited|corrected|fixed|revised))\b/iu;
const LABEL_LINE = /^[^\n]{0,80}\b(?:transcript|text|version)\b[^\n]{0,40}:\s*(?:\n|$)/iu;
const COMMENTARY =
  /(?:let me know|hope (?:this|that) helps|feel free to|i(?:'ve|’ve| have) (?:removed|corrected|fixed|cleaned|edited))/iu;
const QUESTION_MARK = /[?？]/u;
const INTERROGATIVE =
  /^(?:what|who|whom|whose|why|how|when|where|which|can|could|would|should|will|shall|may|is|are|am|do|does|did)\b/iu;

/** Frequent function words that tell apart the Latin-script languages people dictate most. */
const STOPWORDS: Record<string, ReadonlySet<string>> = {
  en: new Set("the and is are were you that this with have what for not would could should".split(" ")),
  de: new Set(
    "der die das und ist nicht ich sie wir mit ein eine einen auf für auch wie aber dass".split(" "),
  ),
  fr: new Set("le les et est une je vous nous pas dans pour avec qui sur cette mais".split(" ")),
  es: new Set("el los las y para pero está muy más yo también".split(" ")),
  it: new Set("gli che è sono della anche molto questo questa".split(" ")),
  pt: new Set("os não com são você muito também isso uma".split(" ")),
  nl: new Set("het een niet dat voor van zijn wij ook maar".split(" ")),
};

/** Strips wrappers models add around an otherwise good edit: reasoning blocks, tags, fences, quotes. */
export function unwrapReply(reply: string, input: string): string {
  let text = reply.replace(/<think>[\s\S]*?<\/think>/giu, "").trim();
  const tagged = /^<transcript>\s*([\s\S]*?)\s*<\/transcript>$/iu.exec(text);
  if (tagged?.[1] !== undefined) text = tagged[1];
  const fence = /^```[\w-]*\n([\s\S]*?)\n```$/u.exec(text);
  if (fence?.[1] !== undefined && !input.trimStart().startsWith("```")) text = fence[1];
  const quoted = /^(["“'])([\s\S]*)(["”'])$/u.exec(text);
  if (quoted?.[2] !== undefined && !/^["“']/u.test(input.trim())) text = quoted[2];
  return text.trim();
}

function guessLanguage(words: readonly string[]): string | null {
  const scores = Object.entries(STOPWORDS)
    .map(([language, set]) => [language, words.filter((w) => set.has(w)).length] as const)
    .sort((a, b) => b[1] - a[1]);
  const [best, second] = scores;
  if (best === undefined || best[1] < 2 || best[1] < 2 * (second?.[1] ?? 0)) return null;
  return best[0];
}

function preambleProblem(input: string, reply: string): string | null {
  const firstLine = reply.split("\n", 1)[0]?.slice(0, 80) ?? "";
  const sameStart = wordsOf(input)[0] === wordsOf(reply)[0];
  if (!sameStart && (COURTESY.test(reply) || PRESENTS.test(reply)))
    return `the reply opens with "${firstLine}"`;
  if (LABEL_LINE.test(reply) && !LABEL_LINE.test(input)) return `the reply opens with "${firstLine}"`;
  const lastLine = reply.trimEnd().split("\n").at(-1) ?? "";
  if (COMMENTARY.test(lastLine) && !COMMENTARY.test(input))
    return `the reply ends with "${lastLine.slice(0, 80)}"`;
  return null;
}

function languageProblem(input: string, reply: string): string | null {
  const from = dominantScript(input);
  const to = dominantScript(reply);
  if (from !== null && to !== null && from !== to) return `the script changed from ${from} to ${to}`;
  const fromLanguage = guessLanguage(wordsOf(input));
  const toLanguage = guessLanguage(wordsOf(reply));
  if (fromLanguage !== null && toLanguage !== null && fromLanguage !== toLanguage) {
    return `the language changed from ${fromLanguage} to ${toLanguage}`;
  }
  return null;
}

function answerProblem(input: string, reply: string, vocabulary: readonly string[]): string | null {
  const trimmed = input.trim();
  const asks = QUESTION_MARK.test(trimmed) || (INTERROGATIVE.test(trimmed) && !/[.!]/u.test(trimmed));
  if (asks && !QUESTION_MARK.test(reply)) {
    return "the transcript asks a question and the reply does not: it reads as an answer";
  }
  const known = new Set([...wordsOf(input), ...vocabulary.flatMap(wordsOf)]);
  const replyWords = wordsOf(reply);
  const added = replyWords.filter((w) => !known.has(w)).length;
  if (replyWords.length >= 6 && added / replyWords.length > MAX_NEW_WORD_SHARE) {
    return `${Math.round((100 * added) / replyWords.length)}% of the reply's words are not in the transcript`;
  }
  return null;
}

function lengthProblem(input: string, reply: string): string | null {
  const ratio = reply.length / Math.max(1, input.length);
  if (Math.abs(reply.length - input.length) <= LENGTH_RATIO.slackChars) return null;
  if (ratio >= LENGTH_RATIO.min && ratio <= LENGTH_RATIO.max) return null;
  return `the reply is ${ratio.toFixed(2)}× the input's length (allowed ${LENGTH_RATIO.min}–${LENGTH_RATIO.max}×)`;
}

/** Validates an unwrapped reply against the text that was sent. Checks run from most to least specific. */
export function validateRewrite(input: string, reply: string, vocabulary: readonly string[]): Verdict {
  if (reply === "") return { ok: false, reason: "rejected_length", detail: "the reply is empty" };
  const checks: ReadonlyArray<readonly [RejectionReason, () => string | null]> = [
    ["rejected_preamble", () => preambleProblem(input, reply)],
    ["rejected_language", () => languageProblem(input, reply)],
    ["rejected_answer", () => answerProblem(input, reply, vocabulary)],
    ["rejected_length", () => lengthProblem(input, reply)],
  ];
  for (const [reason, check] of checks) {
    const detail = check();
    if (detail !== null) return { ok: false, reason, detail };
  }
  return { ok: true, text: reply };
}
