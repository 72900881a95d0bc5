/**
 * The token model shared by the cleanup passes. A transcript is split on whitespace into chunks;
 * each chunk keeps its word (`core`) apart from the punctuation around it, so passes compare
 * words without caring about commas and rendering reproduces everything they did not touch.
 * Tokens belong to one `cleanTranscript` call: a pass may update the tokens it is given.
 */
export interface WordToken {
  kind: "word";
  /** Opening punctuation or symbols before the word: `"`, `(`, `¿`, `$`. */
  lead: string;
  /** From the first letter or digit to the last letter, digit or mark; empty for symbol-only chunks. */
  core: string;
  /** Closing punctuation after the word: `,`, `.`, `?"`, `)`. */
  trail: string;
}

/** A line break: `"\n"` for a new line, `"\n\n"` for a new paragraph. */
export interface BreakToken {
  kind: "break";
  text: "\n" | "\n\n";
}

export type Token = WordToken | BreakToken;

const CHUNK = /^([^\p{L}\p{N}]*)([\s\S]*[\p{L}\p{N}]\p{M}*)([\s\S]*)$/u;
const CLOSING_ONLY = /^[,.;:!?…)\]}»”’%]+$/u;
const OPENING_ONLY = /^[([{«“¿¡]+$/u;
const HORIZONTAL_SPACE = /[^\S\n]+/gu;

const word = (lead: string, core: string, trail: string): WordToken => ({
  kind: "word",
  lead,
  core,
  trail,
});

/** Splits normalised text (NFC, `\n` line ends) into tokens; lone punctuation joins its neighbour. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let pendingLead = "";
  for (const line of text.split(/(\n+)/u)) {
    if (line.startsWith("\n")) {
      tokens.push({ kind: "break", text: line.length > 1 ? "\n\n" : "\n" });
      continue;
    }
    for (const chunk of line.split(HORIZONTAL_SPACE)) {
      if (chunk === "") continue;
      const parts = CHUNK.exec(chunk);
      const previous = tokens.at(-1);
      if (parts) {
        let lead = parts[1] ?? "";
        // "Hello ,world": a comma written before the word belongs after the previous one.
        const misplaced = /^[,;!?]+/u.exec(lead)?.[0];
        if (misplaced && previous?.kind === "word") {
          previous.trail += misplaced;
          lead = lead.slice(misplaced.length);
        }
        tokens.push(word(pendingLead + lead, parts[2] ?? "", parts[3] ?? ""));
        pendingLead = "";
        continue;
      }
      if (CLOSING_ONLY.test(chunk) && previous?.kind === "word") previous.trail += chunk;
      else if (OPENING_ONLY.test(chunk)) pendingLead += chunk;
      else tokens.push(word(pendingLead + chunk, "", ""));
    }
  }
  if (pendingLead !== "") tokens.push(word(pendingLead, "", ""));
  return tokens;
}

/** Joins tokens back into text: one space between words, none around line breaks. */
export function render(tokens: readonly Token[]): string {
  let out = "";
  let pendingBreak = "";
  for (const token of tokens) {
    if (token.kind === "break") {
      if (token.text.length > pendingBreak.length) pendingBreak = token.text;
      continue;
    }
    const text = token.lead + token.core + token.trail;
    if (text === "") continue;
    if (out !== "") out += pendingBreak === "" ? " " : pendingBreak;
    pendingBreak = "";
    out += text;
  }
  return out;
}

/** Lower-cased word for comparisons; cleanup rules are lexical, so simple lower-casing is enough. */
export const folded = (token: WordToken): string => token.core.toLowerCase();

export const isWord = (token: Token | undefined): token is WordToken => token?.kind === "word";

const SOFT_MARKS = /[,;:.?!]+$/u;

/**
 * Puts a sentence or clause mark at the end of `trail`, replacing the mark the engine wrote
 * there: the speaker's explicit choice wins, and "done., " never happens.
 */
export function mergeMark(trail: string, mark: string): string {
  if (trail.endsWith("...") || trail.endsWith("…"))
    return mark === "." || mark === "..." ? trail : trail + mark;
  return trail.replace(SOFT_MARKS, "") + mark;
}

/** Tidies engine punctuation inside one trail: ",." → ".", ".," → ".", ",," → ",". */
export function tidyTrail(trail: string): string {
  if (trail.length < 2) return trail;
  return trail
    .replace(/,+(?=[.?!;:])/gu, "")
    .replace(/([.?!;:])[,;:]+/gu, "$1")
    .replace(/([,;:])\1+/gu, "$1");
}
