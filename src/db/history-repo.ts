import type { Database } from "bun:sqlite";
import { createHistoryLister, historyColumns } from "./history-list.ts";
import type { HistoryRow, NewHistoryRow } from "./history-row.ts";

export type { HistoryListOptions } from "./history-list.ts";

export interface HistoryTotals {
  sessions: number;
  words: number;
  audio_ms: number;
  /** Sum over all entries. */
  processing_ms: number;
}

export interface HistoryDay {
  day: string;
  sessions: number;
  words: number;
}

export function createHistoryRepo(db: Database) {
  // created_at never goes below the newest row's, so ids follow time even if the clock steps back.
  const insert = db.query<{ id: number; created_at: string }, NewHistoryRow>(
    `INSERT INTO history (raw_text, cleaned_text, final_text, word_count, language, engine, model,
       audio_duration_ms, processing_ms, app_context, format_id, format_label, source, key_name, created_at)
     VALUES ($raw_text, $cleaned_text, $final_text, $word_count, $language, $engine, $model,
       $audio_duration_ms, $processing_ms, $app_context, $format_id, $format_label, $source, $key_name,
       max($created_at, coalesce((SELECT max(created_at) FROM history), $created_at)))
     RETURNING id, created_at`,
  );
  const byId = db.query<HistoryRow, [number]>(`SELECT ${historyColumns} FROM history WHERE id = ?`);
  const deleteOne = db.query<never, [number]>("DELETE FROM history WHERE id = ?");
  const deleteEvery = db.query<never, []>("DELETE FROM history");
  const deleteOneOf = db.query<never, [number, string]>("DELETE FROM history WHERE id = ? AND key_name = ?");
  const deleteEveryOf = db.query<never, [string]>("DELETE FROM history WHERE key_name = ?");
  const totalsOf = db.query<HistoryTotals, [string]>(
    `SELECT count(*) AS sessions, coalesce(sum(word_count), 0) AS words,
       coalesce(sum(audio_duration_ms), 0) AS audio_ms, coalesce(sum(processing_ms), 0) AS processing_ms
     FROM history WHERE key_name = ?`,
  );
  const dailyOf = db.query<HistoryDay, [string, string]>(
    `WITH days AS MATERIALIZED (
       SELECT key, value ->> 0 AS day, value ->> 1 AS start, value ->> 2 AS stop FROM json_each(?))
     SELECT day,
       (SELECT count(*) FROM history WHERE key_name = ?2 AND created_at >= start AND created_at < stop) AS sessions,
       (SELECT coalesce(sum(word_count), 0) FROM history WHERE key_name = ?2 AND created_at >= start AND created_at < stop) AS words
     FROM days ORDER BY key`,
  );
  const deleteBefore = db.query<never, [string]>("DELETE FROM history WHERE created_at < ?");
  const totals = db.query<HistoryTotals, []>(
    "SELECT sessions, words, audio_ms, processing_ms FROM history_totals WHERE id = 1",
  );
  // One covering-index range per day: the client's day boundaries arrive as UTC instants, so no
  // row's timestamp is parsed, and there is no grouping pass over every row in the window.
  const daily = db.query<HistoryDay, [string]>(
    `WITH days AS MATERIALIZED (
       SELECT key, value ->> 0 AS day, value ->> 1 AS start, value ->> 2 AS stop FROM json_each(?))
     SELECT day,
       (SELECT count(*) FROM history WHERE created_at >= start AND created_at < stop) AS sessions,
       (SELECT coalesce(sum(word_count), 0) FROM history WHERE created_at >= start AND created_at < stop) AS words
     FROM days ORDER BY key`,
  );

  return {
    /** Returns the new row's id and its stored creation time. */
    insert(row: NewHistoryRow): { id: number; createdAt: string } {
      const stored = insert.get(row);
      if (!stored) throw new Error("history insert returned no row");
      return { id: stored.id, createdAt: stored.created_at };
    },
    findById: (id: number): HistoryRow | null => byId.get(id),
    list: createHistoryLister(db),
    /** With `key`, only a row made with that key is deleted. */
    deleteById: (id: number, key?: string): boolean =>
      (key === undefined ? deleteOne.run(id) : deleteOneOf.run(id, key)).changes > 0,
    deleteAll: (key?: string): number =>
      (key === undefined ? deleteEvery.run() : deleteEveryOf.run(key)).changes,
    deleteCreatedBefore: (before: string): number => deleteBefore.run(before).changes,
    totals: (key?: string): HistoryTotals =>
      (key === undefined ? totals.get() : totalsOf.get(key)) ?? {
        sessions: 0,
        words: 0,
        audio_ms: 0,
        processing_ms: 0,
      },
    /** Counts per day; each day is `{day, start, end}` with UTC ISO bounds (end exclusive). */
    dailyCounts: (days: { day: string; start: string; end: string }[], key?: string): HistoryDay[] => {
      const json = JSON.stringify(days.map((d) => [d.day, d.start, d.end]));
      return key === undefined ? daily.all(json) : dailyOf.all(json, key);
    },
  };
}

export type HistoryRepo = ReturnType<typeof createHistoryRepo>;
