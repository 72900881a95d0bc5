import type { HistoryRepo } from "../db/history-repo.ts";
import type { HistoryStats, HistoryStatsQuery } from "./schemas.ts";

const dayMs = 86_400_000;

/** The client's last `count` days, oldest first, as dates with their UTC bounds. */
function localDays(now: Date, offsetMinutes: number, count: number) {
  const offsetMs = offsetMinutes * 60_000;
  const today = Math.floor((now.getTime() + offsetMs) / dayMs) * dayMs;
  return Array.from({ length: count }, (_, index) => {
    const local = today - (count - 1 - index) * dayMs;
    return {
      day: new Date(local).toISOString().slice(0, 10),
      start: new Date(local - offsetMs).toISOString(),
      end: new Date(local + dayMs - offsetMs).toISOString(),
    };
  });
}

/** Totals over all history, today's count and per-day counts (zero-filled) in the client's time zone. */
export function computeHistoryStats(
  repo: HistoryRepo,
  query: HistoryStatsQuery,
  now: Date,
  key?: string,
): HistoryStats {
  const totals = repo.totals(key);
  const days = repo
    .dailyCounts(localDays(now, query.tzOffsetMinutes, query.days), key)
    .map((d) => ({ date: d.day, sessions: d.sessions, words: d.words }));
  const audioMinutes = totals.audio_ms / 60_000;
  return {
    sessions: totals.sessions,
    words: totals.words,
    audioMs: totals.audio_ms,
    averageProcessingMs: totals.sessions > 0 ? Math.round(totals.processing_ms / totals.sessions) : null,
    wordsPerMinute: audioMinutes > 0 ? Math.round((totals.words / audioMinutes) * 10) / 10 : null,
    today: days.at(-1)?.sessions ?? 0,
    days,
  };
}
