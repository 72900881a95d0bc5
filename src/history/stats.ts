import type { HistoryRepo } from "../db/history-repo.ts";
import type { HistoryStats, HistoryStatsQuery } from "./schemas.ts";

const dayMs = 86_400_000;

/** UTC instant at which the client's day containing `now` began, shifted back `daysBack` days. */
function localDayStart(now: Date, offsetMinutes: number, daysBack = 0): number {
  const shifted = now.getTime() + offsetMinutes * 60_000;
  return Math.floor(shifted / dayMs) * dayMs - daysBack * dayMs - offsetMinutes * 60_000;
}

const localDate = (instant: number, offsetMinutes: number) =>
  new Date(instant + offsetMinutes * 60_000).toISOString().slice(0, 10);

/** Totals over all history, today's count and per-day counts (zero-filled) in the client's time zone. */
export function computeHistoryStats(repo: HistoryRepo, query: HistoryStatsQuery, now: Date): HistoryStats {
  const offset = query.tzOffsetMinutes;
  const totals = repo.totals();
  const today = localDayStart(now, offset);
  const first = localDayStart(now, offset, query.days - 1);
  const shift = `${offset >= 0 ? "+" : "-"}${Math.abs(offset)} minutes`;
  const counted = new Map(repo.dailyCounts(new Date(first).toISOString(), shift).map((d) => [d.day, d]));
  const days = Array.from({ length: query.days }, (_, index) => {
    const date = localDate(first + index * dayMs, offset);
    const found = counted.get(date);
    return { date, sessions: found?.sessions ?? 0, words: found?.words ?? 0 };
  });
  const audioMinutes = totals.audio_ms / 60_000;
  return {
    sessions: totals.sessions,
    words: totals.words,
    audioMs: totals.audio_ms,
    averageProcessingMs: totals.processing_ms_avg === null ? null : Math.round(totals.processing_ms_avg),
    wordsPerMinute: audioMinutes > 0 ? Math.round((totals.words / audioMinutes) * 10) / 10 : null,
    today: repo.countCreatedSince(new Date(today).toISOString()),
    days,
  };
}
