import type { Database } from "bun:sqlite";

export interface HistoryRow {
  id: number;
  raw_text: string;
  cleaned_text: string | null;
  final_text: string;
  word_count: number;
  language: string | null;
  engine: string;
  model: string | null;
  audio_duration_ms: number;
  processing_ms: number;
  /** JSON `{app?, title?, url?}`. */
  app_context: string | null;
  format_id: number | null;
  format_label: string | null;
  created_at: string;
}

export type NewHistoryRow = Omit<HistoryRow, "id">;

export const historySortColumns = {
  createdAt: "created_at",
  audioDurationMs: "audio_duration_ms",
  processingMs: "processing_ms",
  wordCount: "word_count",
} as const;

export interface HistoryFilter {
  /** A safe FTS5 query (see history/search.ts), never raw user text. */
  match?: string;
  /** A `LIKE … ESCAPE '\'` pattern over the texts, for searches with no indexable words. */
  like?: string;
  /** Inclusive lower and exclusive upper bound on `created_at` (ISO 8601 UTC). */
  from?: string;
  until?: string;
}

export interface HistoryListOptions extends HistoryFilter {
  sort: keyof typeof historySortColumns;
  direction: "ASC" | "DESC";
  limit: number;
  offset: number;
}

export interface HistoryTotals {
  sessions: number;
  words: number;
  audio_ms: number;
  processing_ms_avg: number | null;
}

export interface HistoryDay {
  day: string;
  sessions: number;
  words: number;
}

const columns = `id, raw_text, cleaned_text, final_text, word_count, language, engine, model,
  audio_duration_ms, processing_ms, app_context, format_id, format_label, created_at`;

function where(filter: HistoryFilter): { sql: string; params: Record<string, string> } {
  const clauses: string[] = [];
  const params: Record<string, string> = {};
  if (filter.match !== undefined) {
    clauses.push("id IN (SELECT rowid FROM history_fts WHERE history_fts MATCH $match)");
    params.match = filter.match;
  }
  if (filter.like !== undefined) {
    clauses.push("(final_text LIKE $like ESCAPE '\\' OR raw_text LIKE $like ESCAPE '\\')");
    params.like = filter.like;
  }
  if (filter.from !== undefined) {
    clauses.push("created_at >= $from");
    params.from = filter.from;
  }
  if (filter.until !== undefined) {
    clauses.push("created_at < $until");
    params.until = filter.until;
  }
  return { sql: clauses.length > 0 ? `WHERE ${clauses.join(" AND ")}` : "", params };
}

export function createHistoryRepo(db: Database) {
  const insert = db.query<{ id: number }, NewHistoryRow>(
    `INSERT INTO history (raw_text, cleaned_text, final_text, word_count, language, engine, model,
       audio_duration_ms, processing_ms, app_context, format_id, format_label, created_at)
     VALUES ($raw_text, $cleaned_text, $final_text, $word_count, $language, $engine, $model,
       $audio_duration_ms, $processing_ms, $app_context, $format_id, $format_label, $created_at)
     RETURNING id`,
  );
  const byId = db.query<HistoryRow, [number]>(`SELECT ${columns} FROM history WHERE id = ?`);
  const deleteOne = db.query<never, [number]>("DELETE FROM history WHERE id = ?");
  const deleteEvery = db.query<never, []>("DELETE FROM history");
  const deleteBefore = db.query<never, [string]>("DELETE FROM history WHERE created_at < ?");
  const totals = db.query<HistoryTotals, []>(
    `SELECT count(*) AS sessions, coalesce(sum(word_count), 0) AS words,
       coalesce(sum(audio_duration_ms), 0) AS audio_ms, avg(processing_ms) AS processing_ms_avg
     FROM history`,
  );
  const countSince = db.query<{ n: number }, [string]>(
    "SELECT count(*) AS n FROM history WHERE created_at >= ?",
  );
  // The modifier shifts UTC timestamps into the client's day boundaries, e.g. "+120 minutes".
  const daily = db.query<HistoryDay, [string, string]>(
    `SELECT substr(datetime(created_at, ?1), 1, 10) AS day, count(*) AS sessions, sum(word_count) AS words
     FROM history WHERE created_at >= ?2 GROUP BY day ORDER BY day`,
  );

  return {
    /** Returns the new row's id. */
    insert: (row: NewHistoryRow): number => insert.get(row)?.id ?? 0,
    findById: (id: number): HistoryRow | null => byId.get(id),
    list(options: HistoryListOptions): { rows: HistoryRow[]; total: number } {
      const { sql, params } = where(options);
      const order = `${historySortColumns[options.sort]} ${options.direction}, id ${options.direction}`;
      const rows = db
        .query<HistoryRow, Record<string, string | number>>(
          `SELECT ${columns} FROM history ${sql} ORDER BY ${order} LIMIT $limit OFFSET $offset`,
        )
        .all({ ...params, limit: options.limit, offset: options.offset });
      const total = db.query<{ n: number }, Record<string, string>>(
        `SELECT count(*) AS n FROM history ${sql}`,
      );
      return { rows, total: total.get(params)?.n ?? 0 };
    },
    deleteById: (id: number): boolean => deleteOne.run(id).changes > 0,
    deleteAll: (): number => deleteEvery.run().changes,
    deleteCreatedBefore: (before: string): number => deleteBefore.run(before).changes,
    totals: (): HistoryTotals =>
      totals.get() ?? { sessions: 0, words: 0, audio_ms: 0, processing_ms_avg: null },
    countCreatedSince: (since: string): number => countSince.get(since)?.n ?? 0,
    dailyCounts: (since: string, utcShift: string): HistoryDay[] => daily.all(utcShift, since),
  };
}

export type HistoryRepo = ReturnType<typeof createHistoryRepo>;
