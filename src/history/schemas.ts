import * as v from "valibot";
import { listQuerySchema } from "../lists.ts";

const isoDate = /^\d{4}-\d{2}-\d{2}$/;
const isoDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * True when the calendar date and clock time written in `text` exist: JavaScript's parser rolls
 * 2026-02-30 over to March 2 and reads 24:00 as the next midnight, which would filter on a day
 * nobody asked for.
 */
export function isRealDateTime(text: string): boolean {
  const [year, month, day, hour = 0, minute = 0, second = 0] = (text.match(/\d+/g) ?? []).map(Number);
  if (year === undefined || month === undefined || day === undefined) return false;
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59
  );
}

// A bound is a day (`2025-03-01`, UTC) or an instant with its offset (`2025-03-01T00:00:00+01:00`).
const dateBound = (name: string, endOfDay: boolean) =>
  v.optional(
    v.pipe(
      v.string(),
      v.description(
        `${endOfDay ? "Latest" : "Earliest"} creation time, inclusive: a date (whole UTC day) or a date-time with offset.`,
      ),
      v.check(
        (text) =>
          (isoDate.test(text) || isoDateTime.test(text)) &&
          isRealDateTime(text) &&
          !Number.isNaN(Date.parse(text)),
        `${name} must be an ISO 8601 date (2025-03-01) or date-time with an offset (2025-03-01T08:00:00Z)`,
      ),
      v.transform((text) => {
        const time = Date.parse(isoDate.test(text) ? `${text}T00:00:00Z` : text);
        // `to` is inclusive: a whole day for a date, the instant itself (ms precision) otherwise.
        const end = isoDate.test(text) ? time + 86_400_000 : time + 1;
        return new Date(endOfDay ? end : time).toISOString();
      }),
    ),
  );

export const historySortFields = ["createdAt", "audioDurationMs", "processingMs", "wordCount"] as const;

export const historyListQuerySchema = v.pipe(
  v.object({
    ...listQuerySchema(historySortFields, "createdAt:desc").entries,
    from: dateBound("from", false),
    to: dateBound("to", true),
    key: v.optional(
      v.pipe(
        v.string(),
        v.description("Only the entries made with the key of this name (an admin's filter)."),
        v.maxLength(64, "key is a key's name, at most 64 characters"),
      ),
    ),
  }),
  v.check(
    (query) => query.from === undefined || query.to === undefined || query.from < query.to,
    "from must not be after to",
  ),
);
export type HistoryListQuery = v.InferOutput<typeof historyListQuerySchema>;

const wholeInRange = (name: string, min: number, max: number, fallback: number, description: string) =>
  v.pipe(
    v.optional(v.string(), String(fallback)),
    v.description(description),
    v.regex(/^-?\d{1,4}$/, `${name} must be a whole number`),
    v.transform(Number),
    v.minValue(min, `${name} must be at least ${min}`),
    v.maxValue(max, `${name} must be at most ${max}`),
  );

export const historyStatsQuerySchema = v.object({
  days: wholeInRange("days", 1, 365, 30, "Per-day counts for this many days, today included (1-365)."),
  tzOffsetMinutes: wholeInRange(
    "tzOffsetMinutes",
    -840,
    840,
    0,
    "The client's minutes east of UTC, for day boundaries: -new Date().getTimezoneOffset().",
  ),
});
export type HistoryStatsQuery = v.InferOutput<typeof historyStatsQuerySchema>;

export const historyStatsSchema = v.object({
  sessions: v.number(),
  words: v.number(),
  audioMs: v.number(),
  averageProcessingMs: v.nullable(v.number()),
  wordsPerMinute: v.nullable(v.number()),
  today: v.number(),
  days: v.array(v.object({ date: v.string(), sessions: v.number(), words: v.number() })),
});
export type HistoryStats = v.InferOutput<typeof historyStatsSchema>;

export const historyIdParamsSchema = v.object({
  id: v.pipe(
    v.string(),
    v.regex(/^[1-9]\d{0,15}$/, "id must be a positive whole number"),
    v.transform(Number),
    v.safeInteger("id is too large"),
  ),
});
