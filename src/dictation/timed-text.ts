import type { TranscriptSegment, TranscriptWord } from "./engines/types.ts";

// The finished text on the engine's timeline: subtitles, `segments` and `words` read like `text`
// (capitals, punctuation, fillers gone, dictionary applied) while keeping the engine's times.
// The finished words are lined up with the engine's word by word (case and punctuation aside);
// where cleanup rewrote the text so that fewer than half line up, nothing is answered and the
// caller keeps the engine's own text.

/** How far ahead a word that cleanup kept is looked for, past words it dropped or replaced. */
const lookahead = 8;

/** A word's key: its letters and digits, lowercased ("Meters." and "meters" are one). */
const keyOf = (word: string) => word.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");

const wordsOf = (text: string) => text.split(/\s+/).filter(Boolean);

/** A finished word and where it lines up: the engine word it matched, or the one it stands in for. */
interface Placed {
  word: string;
  /** Index into the engine's words. */
  at: number;
  matched: boolean;
}

/**
 * Lines `finished` up with `engine` (two word lists). Each finished word gets the index of the
 * engine word it matches, or, when cleanup added or replaced it, of the engine word where the
 * change begins. Null when fewer than half the words match.
 */
function lineUp(engine: readonly string[], finished: readonly string[]): Placed[] | null {
  const a = engine.map(keyOf);
  const b = finished.map(keyOf);
  const placed: Placed[] = [];
  let matches = 0;
  let i = 0;
  let j = 0;
  while (j < b.length) {
    if (i < a.length && a[i] === b[j] && b[j] !== "") {
      placed.push({ word: finished[j] as string, at: i, matched: true });
      matches++;
      i++;
      j++;
      continue;
    }
    // The nearest pair that matches again: engine words skipped were dropped or replaced, finished
    // words skipped were added or stand in for them.
    let best: [number, number] | null = null;
    for (let sum = 1; sum <= lookahead && !best; sum++) {
      for (let di = 0; di <= sum && !best; di++) {
        const dj = sum - di;
        if (i + di < a.length && j + dj < b.length && a[i + di] === b[j + dj] && a[i + di] !== "")
          best = [di, dj];
      }
    }
    const [di, dj] = best ?? [1, 1];
    for (let k = 0; k < dj && j < b.length; k++, j++)
      placed.push({ word: finished[j] as string, at: Math.min(i, a.length - 1), matched: false });
    i += di;
  }
  const total = Math.max(a.length, b.length);
  return total > 0 && matches * 2 >= total ? placed : null;
}

/** A timed word as OpenAI's `words` spell them: no surrounding punctuation. */
const bare = (word: string) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "") || word;

/**
 * The engine's timed words carrying the finished text's words: a matched word keeps its time; words
 * cleanup put in place of others share the time those took; a word cleanup added takes none of
 * its own (it starts and ends where the word before it ended); words cleanup dropped are gone.
 */
function finishedWords(
  timed: readonly TranscriptWord[],
  finished: readonly string[],
): TranscriptWord[] | null {
  const placed = lineUp(
    timed.map((word) => word.word),
    finished,
  );
  if (!placed) return null;
  const out: TranscriptWord[] = [];
  for (let k = 0; k < placed.length; ) {
    const entry = placed[k] as Placed;
    const source = timed[entry.at];
    if (entry.matched && source) {
      out.push({ ...source, word: bare(entry.word) });
      k++;
      continue;
    }
    // A run of unmatched words, and the engine words it replaced (up to the next match).
    let end = k;
    while (end < placed.length && !(placed[end] as Placed).matched) end++;
    const next = placed[end];
    const from = entry.at;
    const to = next ? next.at : timed.length;
    const replaced = timed.slice(from, Math.max(from, to));
    const previous = out.at(-1)?.endMs ?? replaced[0]?.startMs ?? 0;
    const startMs = replaced[0]?.startMs ?? previous;
    const endMs = replaced.at(-1)?.endMs ?? previous;
    const run = placed.slice(k, end);
    const step = (endMs - startMs) / run.length;
    run.forEach((word, n) => {
      out.push({
        word: bare(word.word),
        startMs: Math.round(startMs + step * n),
        endMs: Math.round(startMs + step * (n + 1)),
      });
    });
    k = end;
  }
  return out;
}

/**
 * The segments with the finished text in place of the engine's, lined up word by word; their words
 * (when the engine timed them) too. Null when the finished text no longer lines up with the
 * engine's: the caller answers the engine's text instead.
 */
export function finishedSegments(
  segments: readonly TranscriptSegment[],
  text: string,
): TranscriptSegment[] | null {
  const finished = wordsOf(text);
  const engine: { word: string; segment: number }[] = [];
  segments.forEach((segment, index) => {
    for (const word of wordsOf(segment.text)) engine.push({ word, segment: index });
  });
  if (engine.length === 0) return null;
  const placed = lineUp(
    engine.map((entry) => entry.word),
    finished,
  );
  if (!placed) return null;
  const texts: string[][] = segments.map(() => []);
  for (const entry of placed) texts[engine[entry.at]?.segment ?? 0]?.push(entry.word);
  const timed = segments.flatMap((segment) => segment.words ?? []);
  const words = timed.length > 0 ? finishedWords(timed, finished) : null;
  // Each timed word goes to the last segment that starts at or before it (the first, before all).
  const wordsIn: TranscriptWord[][] = segments.map(() => []);
  for (const word of words ?? []) {
    let index = 0;
    segments.forEach((segment, n) => {
      if (segment.startMs <= word.startMs) index = n;
    });
    wordsIn[index]?.push(word);
  }
  return segments.map((segment, index) => {
    const out: TranscriptSegment = { ...segment, text: (texts[index] ?? []).join(" ") };
    if (segment.words) out.words = words ? (wordsIn[index] ?? []) : segment.words;
    return out;
  });
}
