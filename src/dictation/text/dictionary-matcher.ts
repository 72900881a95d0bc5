/**
 * The dictionary ("say the key, get the value") compiled into one matcher: a trie over word
 * tokens, applied in a single left-to-right pass. Whole words fall out of the tokenisation (a
 * key's tokens must equal the text's tokens, so "cat" never sees "category"), and replacements
 * are written to a new string, so a value is inserted literally and never matched again.
 */

import { foldCase } from "../../fold.ts";
import { NO_SPACE_SCRIPTS } from "./cleanup/writing-systems.ts";

export interface DictionaryEntry {
  id: number;
  key: string;
  value: string;
}

export interface DictionaryApplication {
  text: string;
  /** Entry id → number of replacements it made in this text. */
  hits: Map<number, number>;
}

export interface DictionaryMatcher {
  /** Number of distinct keys compiled in. */
  readonly size: number;
  apply(text: string): DictionaryApplication;
}

interface TrieNode {
  children: Map<string, TrieNode> | null;
  entry: DictionaryEntry | null;
}

/**
 * One token per match: a whitespace run (folded to one space, so multi-word keys tolerate any
 * spacing); one character of a script written without spaces, with its combining marks (so keys
 * in those scripts match anywhere); a run of word characters (letters, marks, digits, underscore:
 * accented letters are word characters); or any other single character (punctuation, symbols,
 * emoji), which keeps "c++" and "node.js" matchable.
 */
const TOKEN = new RegExp(
  String.raw`(\s+)|([${NO_SPACE_SCRIPTS}]\p{M}*)|([[\p{L}\p{M}\p{N}_]--[${NO_SPACE_SCRIPTS}]]+)|(.)`,
  "gsv",
);

const GAP = " ";
/** Tokens never hold whitespace, so printable ASCII is the whole fast path. */
const NON_ASCII = /[^\x20-\x7e]/u;

/** `foldCase`, with a fast path for printable ASCII, where it is plain lower-casing. */
const fold = (token: string): string => (NON_ASCII.test(token) ? foldCase(token) : token.toLowerCase());

interface TextToken {
  key: string;
  start: number;
  end: number;
}

function tokenizeText(text: string): TextToken[] {
  const tokens: TextToken[] = [];
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(text); match !== null; match = TOKEN.exec(text)) {
    const start = match.index;
    const end = start + match[0].length;
    tokens.push({ key: match[1] === undefined ? fold(match[0]) : GAP, start, end });
  }
  return tokens;
}

const keyTokens = (key: string): string[] => tokenizeText(key.trim()).map((token) => token.key);

/**
 * Compiles entries into a matcher. When two keys fold to the same tokens ("NASA" and "nasa"), the
 * first entry wins. Keys with no tokens (blank) are ignored.
 */
export function compileDictionary(entries: readonly DictionaryEntry[]): DictionaryMatcher {
  const root: TrieNode = { children: null, entry: null };
  let size = 0;
  for (const entry of entries) {
    const path = keyTokens(entry.key);
    if (path.length === 0) continue;
    let node = root;
    for (const key of path) {
      node.children ??= new Map();
      let child = node.children.get(key);
      if (child === undefined) {
        child = { children: null, entry: null };
        node.children.set(key, child);
      }
      node = child;
    }
    if (node.entry === null) {
      node.entry = entry;
      size += 1;
    }
  }
  return { size, apply: (text) => applyTrie(root, text) };
}

// Where a sentence begins: the text's start, or after . ! ? … or a line break, then spaces.
const sentenceEnd = /(?:^|[.!?…]\s+|\n[ \t]*)$/;
const upper = (ch: string) => ch !== ch.toLowerCase() && ch === ch.toUpperCase();

/**
 * The value as it goes into the text at `at`. Cleanup capitalised the sentence's first word before
 * the dictionary ran, so a replacement there keeps that capital: "Go forward ten meters" with "go
 * forward → go ahead" reads "Go ahead ten meters". A value whose first word already has a capital
 * (iPhone, NASA, McDonald) is written as it is, everywhere.
 */
function casedValue(value: string, text: string, at: number): string {
  const replaced = text.charAt(at);
  if (!upper(replaced) || !sentenceEnd.test(text.slice(Math.max(0, at - 8), at))) return value;
  const firstWord = value.split(/\s/, 1)[0] ?? "";
  if ([...firstWord].some(upper)) return value;
  const first = value.codePointAt(0);
  if (first === undefined) return value;
  const head = String.fromCodePoint(first);
  return head.toUpperCase() + value.slice(head.length);
}

function applyTrie(root: TrieNode, text: string): DictionaryApplication {
  const hits = new Map<number, number>();
  const first = root.children;
  if (first === null || text === "") return { text, hits };
  const tokens = tokenizeText(text);
  let out = "";
  let copiedUpTo = 0;
  for (let index = 0; index < tokens.length; ) {
    const start = tokens[index];
    let node = start === undefined ? undefined : first.get(start.key);
    let best: DictionaryEntry | null = null;
    let bestEnd = index;
    for (let cursor = index; node !== undefined; ) {
      if (node.entry !== null) {
        best = node.entry;
        bestEnd = cursor;
      }
      cursor += 1;
      const next = tokens[cursor];
      node = next === undefined ? undefined : node.children?.get(next.key);
    }
    const end = tokens[bestEnd];
    if (best === null || start === undefined || end === undefined) {
      index += 1;
      continue;
    }
    out += text.slice(copiedUpTo, start.start) + casedValue(best.value, text, start.start);
    copiedUpTo = end.end;
    hits.set(best.id, (hits.get(best.id) ?? 0) + 1);
    index = bestEnd + 1;
  }
  return hits.size === 0 ? { text, hits } : { text: out + text.slice(copiedUpTo), hits };
}
