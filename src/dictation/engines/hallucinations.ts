/**
 * Text whisper-family models invent on silence, noise or a too-strong prompt. Each rule targets a
 * documented failure, so real dictation passes through untouched.
 */
import { stripAsrArtefacts } from "../text/cleanup/asr-artefacts.ts";

/** Sentences learned from subtitled video; nobody dictates them, so they go wherever they appear. */
const OUTRO_SENTENCES = [
  /^(?:thank you|thanks)(?: (?:so|very) much)? for (?:watching|listening|viewing)$/,
  /^(?:please )?(?:like and )?subscribe(?: to (?:my|our|the) channel)?$/,
  /^(?:don't|do not) forget to (?:like and )?subscribe$/,
  /^(?:subtitles|captions|transcription|transcript|translation|translated|transcribed|subtitled)(?: \w+)? by\b.*/,
  /^.*\bamara\.org\b.*$/,
];
/** Alone, these are near-silence artefacts (the famous lone "you"). */
const LONE_ALWAYS = new Set(["you", ""]);
/** Alone on near-silent audio, also artefacts; on audible speech they may be real replies. */
const LONE_QUIET = new Set(["thank you", "thanks", "bye", "bye bye", "okay", "oh", "uh", "um", "hmm", "so"]);

export interface HallucinationOptions {
  /** The prompt the engine was given: output that merely repeats it is an echo. */
  prompt?: string;
  /** The audio was near-silent (the caller measured it): also drop lone "Thank you." and the like. */
  quiet?: boolean;
}

/** Lower case, letters/digits/apostrophes/dots only, single spaces. */
export const normalize = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}'.\s]+/gu, " ")
    .replace(/\.(?!\w)/g, " ")
    .replace(/\s+/g, " ")
    .trim();

function dropOutros(text: string): string {
  // Split only where punctuation meets a space, so "Amara.org" stays one sentence.
  const sentences = text.split(/(?<=[.!?])\s+/);
  return sentences
    .filter((sentence) => !OUTRO_SENTENCES.some((re) => re.test(normalize(sentence))))
    .join(" ");
}

/**
 * Collapses a run of the same phrase into one copy: phrases of 2+ words repeated 3+ times, single words
 * 5+ times (so emphatic "no, no, no" survives; whisper's loops run far longer).
 */
export function collapseRepetitions(text: string): string {
  const words = text.split(/\s+/).filter(Boolean);
  const keys = words.map(normalize);
  const out: string[] = [];
  const maxPhrase = 30;
  let i = 0;
  while (i < words.length) {
    let step = 1;
    for (let k = 1; k <= maxPhrase && i + 2 * k <= words.length; k++) {
      let repeats = 1;
      while (i + (repeats + 1) * k <= words.length && sameRun(keys, i, i + repeats * k, k)) repeats++;
      if (repeats >= (k === 1 ? 5 : 3)) {
        out.push(...words.slice(i, i + k));
        step = repeats * k;
        break;
      }
    }
    if (step === 1) out.push(words[i] ?? "");
    i += step;
  }
  return out.join(" ");
}

function sameRun(keys: string[], a: number, b: number, length: number): boolean {
  for (let j = 0; j < length; j++) if (keys[a + j] !== keys[b + j]) return false;
  return true;
}

/**
 * True when the output is nothing but a stretch of the prompt spanning at least two of its terms
 * (a single term alone may be what was said).
 */
export function isPromptEcho(text: string, prompt: string): boolean {
  const said = normalize(text).split(" ").filter(Boolean);
  const terms = prompt.split(",").map((term) => normalize(term).split(" ").filter(Boolean));
  const words = terms.flat();
  const termOf = terms.flatMap((term, t) => term.map(() => t));
  if (said.length < 2) return false;
  for (let start = 0; start + said.length <= words.length; start++) {
    if (said.every((word, j) => word === words[start + j])) {
      if (termOf[start] !== termOf[start + said.length - 1]) return true;
    }
  }
  return false;
}

/** Removes hallucinated text; returns "" when nothing real is left. */
export function removeHallucinations(text: string, options: HallucinationOptions = {}): string {
  // Non-speech tags ([BLANK_AUDIO], (laughs), *applause*, ♪) by the one list cleanup uses too, so
  // they go whatever cleanup_mode says.
  let out = stripAsrArtefacts(text).replace(/\s+/g, " ").trim();
  out = dropOutros(out).replace(/\s+/g, " ").trim();
  out = collapseRepetitions(out);
  if (options.prompt && isPromptEcho(out, options.prompt)) return "";
  const alone = normalize(out);
  if (LONE_ALWAYS.has(alone) || (options.quiet && LONE_QUIET.has(alone))) return "";
  return /[\p{L}\p{N}]/u.test(out) ? out : "";
}
