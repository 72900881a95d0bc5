import type { Database } from "bun:sqlite";
import type { HistoryRow } from "./history-row.ts";

export const historyColumns = `id, raw_text, cleaned_text, final_text, word_count, language, engine, model,
  audio_duration_ms, processing_ms, app_context, format_id, format_label, source, key_name, created_at`;

// Ties break on id, which follows time (see migrations/0002-history.ts).
export const historySortColumns = {
  createdAt: "created_at",
  audioDurationMs: "audio_duration_ms",
  processingMs: "processing_ms",
  wordCount: "word_count",
} as const;

export interface HistoryListOptions {
  /** A safe FTS5 query (see history/search.ts), never raw user text. */
  match?: string;
  /** A `LIKE … ESCAPE '\'` pattern over the texts, for searches with no indexable words. */
  like?: string;
  /** Inclusive lower and exclusive upper bound on `created_at` (ISO 8601 UTC). */
  from?: string;
  until?: string;
  /** Only the rows made with this key. */
  key?: string;
  sort: keyof typeof historySortColumns;
  direction: "ASC" | "DESC";
  limit: number;
  offset: number;
}

type Params = Record<string, string | number>;
type Result = { rows: HistoryRow[]; total: number };
const texts = "(final_text LIKE $like ESCAPE '\\' OR raw_text LIKE $like ESCAPE '\\')";

/**
 * Plans one page of history so that each query reads about one page of rows, not every match:
 * - page ids come from an index (cheap to skip past a deep offset), then only those rows are read;
 * - a search in creation order walks the FTS index in its rowid order, which is time order, and
 *   a date range becomes an id range for it;
 * - a search in another order probes the sort column's index against the set of matches.
 */
export function createHistoryLister(db: Database) {
  const firstId = db.query<{ id: number }, [string]>(
    "SELECT id FROM history WHERE created_at >= ? ORDER BY created_at, id LIMIT 1",
  );
  const lastId = db.query<{ id: number }, [string]>(
    "SELECT id FROM history WHERE created_at < ? ORDER BY created_at DESC, id DESC LIMIT 1",
  );
  const rows = (sql: string, params: Params) => db.query<HistoryRow, Params>(sql).all(params);
  const count = (sql: string, params: Params) => db.query<{ n: number }, Params>(sql).get(params)?.n ?? 0;

  function plain(options: HistoryListOptions, order: string, page: Params): Result {
    const dates: Params = {};
    const clauses: string[] = [];
    if (options.from !== undefined) {
      clauses.push("created_at >= $from");
      dates.from = options.from;
    }
    if (options.until !== undefined) {
      clauses.push("created_at < $until");
      dates.until = options.until;
    }
    if (options.key !== undefined) {
      clauses.push("key_name = $key");
      dates.key = options.key;
    }
    const where = clauses.length > 0 ? `WHERE ${clauses.join(" AND ")}` : "";
    const ids = `SELECT id FROM history ${where} ${order} LIMIT $limit OFFSET $offset`;
    return {
      rows: rows(`SELECT ${historyColumns} FROM history WHERE id IN (${ids}) ${order}`, {
        ...dates,
        ...page,
      }),
      total: count(`SELECT count(*) AS n FROM history ${where}`, dates),
    };
  }

  function searched(
    options: HistoryListOptions,
    order: string,
    page: Params,
    low: number,
    high: number,
  ): Result {
    const dir = options.direction;
    const keyClause = options.key === undefined ? "" : " AND key_name = $key";
    const keyParam: Params = options.key === undefined ? {} : { key: options.key };
    if (options.like !== undefined) {
      const like: Params = { like: options.like, low, high, ...keyParam };
      const where = `WHERE id BETWEEN $low AND $high AND ${texts}${keyClause}`;
      return {
        rows: rows(`SELECT ${historyColumns} FROM history ${where} ${order} LIMIT $limit OFFSET $offset`, {
          ...like,
          ...page,
        }),
        total: count(`SELECT count(*) AS n FROM history ${where}`, like),
      };
    }
    const match = { match: options.match ?? "", low, high };
    const inIndex = "history_fts MATCH $match AND rowid BETWEEN $low AND $high";
    if (options.key !== undefined) {
      // One key's rows: the matches are probed against the key's rows (paging counts only theirs).
      const where = `WHERE +id IN (SELECT rowid FROM history_fts WHERE ${inIndex})${keyClause}`;
      const keyed = { ...match, ...keyParam };
      return {
        rows: rows(`SELECT ${historyColumns} FROM history ${where} ${order} LIMIT $limit OFFSET $offset`, {
          ...keyed,
          ...page,
        }),
        total: count(`SELECT count(*) AS n FROM history ${where}`, keyed),
      };
    }
    const total = count(`SELECT count(*) AS n FROM history_fts WHERE ${inIndex}`, match);
    if (options.sort === "createdAt") {
      // Only the index is walked past the offset; just the page's rows are then read.
      const ids = `SELECT rowid FROM history_fts WHERE ${inIndex} ORDER BY rowid ${dir} LIMIT $limit OFFSET $offset`;
      const sql = `SELECT ${historyColumns} FROM history WHERE id IN (${ids}) ORDER BY id ${dir}`;
      return { rows: rows(sql, { ...match, ...page }), total };
    }
    // `+id` keeps the planner on the sort column's index, probing each row against the matches.
    const sql = `SELECT ${historyColumns} FROM history WHERE +id IN (SELECT rowid FROM history_fts WHERE ${inIndex}) ${order}`;
    return { rows: rows(`${sql} LIMIT $limit OFFSET $offset`, { ...match, ...page }), total };
  }

  return (options: HistoryListOptions): Result => {
    const dir = options.direction;
    const order = `ORDER BY ${historySortColumns[options.sort]} ${dir}, id ${dir}`;
    const page = { limit: options.limit, offset: options.offset };
    if (options.match === undefined && options.like === undefined) return plain(options, order, page);
    const low = options.from === undefined ? 0 : (firstId.get(options.from)?.id ?? null);
    const high =
      options.until === undefined ? Number.MAX_SAFE_INTEGER : (lastId.get(options.until)?.id ?? null);
    if (low === null || high === null || low > high) return { rows: [], total: 0 };
    return searched(options, order, page, low, high);
  };
}
