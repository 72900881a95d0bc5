import { likePattern } from "../lists.ts";

/** How a user's search text is matched: FTS5 on its words, or LIKE when it has none. */
export type HistorySearch = { match: string } | { like: string };

const indexable = /[\p{L}\p{N}]/u;

/**
 * Turns user text into a safe FTS5 query. Each whitespace-separated chunk becomes a quoted phrase
 * with a prefix match (`"don't"*` finds "don't" and "dont…"), so FTS5 operators (`AND`, `NEAR`,
 * `*`, `"`, `:`, `^`) in the text are searched for as words, never parsed. Text with no letters
 * or digits (`%`, `"`) has nothing the index can find, so it falls back to a literal LIKE.
 */
export function historySearch(text: string): HistorySearch {
  const phrases = text
    .split(/\s+/u)
    .filter((chunk) => indexable.test(chunk))
    .map((chunk) => `"${chunk.replaceAll('"', '""')}"*`);
  if (phrases.length === 0) return { like: likePattern(text) };
  return { match: phrases.join(" ") };
}
