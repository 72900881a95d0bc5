import { afterEach, describe, expect, test } from "bun:test";
import { createHistoryRepo } from "../../src/db/history-repo.ts";
import { createSettingsRepo } from "../../src/db/settings-repo.ts";
import { createEventBus, type ServerEvent } from "../../src/events.ts";
import type { NewHistoryEntry } from "../../src/history/items.ts";
import { createHistoryService, type HistoryService } from "../../src/history/service.ts";
import { silentLogger } from "../../src/logger.ts";
import { createSettingsService } from "../../src/settings/service.ts";
import { createTestApp } from "../helpers/app.ts";

const hour = 3_600_000;
const day = 24 * hour;

const entry = (
  finalText: string,
  createdAt: Date,
  audioDurationMs = 6000,
  processingMs = 200,
): NewHistoryEntry => ({
  rawText: finalText,
  finalText,
  engine: "whisper",
  audioDurationMs,
  processingMs,
  createdAt,
});

/** A history service over a fresh database whose clock the test controls. */
function clocked(now: Date, retentionIntervalMs?: number) {
  const t = createTestApp();
  const published: ServerEvent[] = [];
  const events = createEventBus();
  events.subscribe((event) => published.push(event));
  const settings = createSettingsService({ repo: createSettingsRepo(t.db), events, logger: silentLogger });
  const history = createHistoryService({
    repo: createHistoryRepo(t.db),
    settings,
    events,
    logger: silentLogger,
    now: () => now,
    retentionIntervalMs,
  });
  return { history, settings, published };
}

let running: HistoryService | undefined;
afterEach(() => running?.stopRetention());

describe("history stats", () => {
  const now = new Date("2025-03-10T23:30:00Z");

  test("totals, averages and words per minute over a seeded table", () => {
    const { history } = clocked(now);
    history.record(entry("old words here", new Date(now.getTime() - 90 * day), 0, 200));
    history.record(entry("four five six seven eight nine", new Date(now.getTime() - 3 * day), 30_000, 301));
    history.record(entry("one two three", new Date(now.getTime() - hour), 30_000, 100));
    const stats = history.stats({ days: 7, tzOffsetMinutes: 0 });
    expect(stats).toMatchObject({
      sessions: 3,
      words: 12,
      audioMs: 60_000,
      averageProcessingMs: 200,
      today: 1,
    });
    expect(stats.wordsPerMinute).toBe(12);
    expect(stats.days).toHaveLength(7);
    expect(stats.days[0]?.date).toBe("2025-03-04");
    expect(stats.days.at(-1)).toEqual({ date: "2025-03-10", sessions: 1, words: 3 });
    expect(stats.days.find((d) => d.date === "2025-03-07")).toEqual({
      date: "2025-03-07",
      sessions: 1,
      words: 6,
    });
    expect(stats.days.reduce((sum, d) => sum + d.sessions, 0)).toBe(2);
  });

  test("an empty history has zero totals and null averages", () => {
    const { history } = clocked(now);
    const stats = history.stats({ days: 1, tzOffsetMinutes: 0 });
    expect(stats).toEqual({
      sessions: 0,
      words: 0,
      audioMs: 0,
      averageProcessingMs: null,
      wordsPerMinute: null,
      today: 0,
      days: [{ date: "2025-03-10", sessions: 0, words: 0 }],
    });
  });

  test("days follow the client's time zone", () => {
    const { history } = clocked(now);
    history.record(entry("late evening", new Date("2025-03-10T21:30:00Z")));
    history.record(entry("after midnight in Berlin", new Date("2025-03-10T22:30:00Z")));
    const utc = history.stats({ days: 2, tzOffsetMinutes: 0 });
    expect(utc.today).toBe(2);
    expect(utc.days.map((d) => [d.date, d.sessions])).toEqual([
      ["2025-03-09", 0],
      ["2025-03-10", 2],
    ]);
    const berlin = history.stats({ days: 2, tzOffsetMinutes: 120 });
    expect(berlin.today).toBe(1);
    expect(berlin.days.map((d) => [d.date, d.sessions])).toEqual([
      ["2025-03-10", 1],
      ["2025-03-11", 1],
    ]);
    const newYork = history.stats({ days: 1, tzOffsetMinutes: -240 });
    expect(newYork.days).toEqual([{ date: "2025-03-10", sessions: 2, words: 6 }]);
  });
});

describe("history.record", () => {
  test("never stores a creation time before the newest entry's, so ids follow time", () => {
    const { history } = clocked(new Date("2025-06-01T12:00:00Z"));
    history.record(entry("first", new Date("2025-06-01T11:00:00Z")));
    const id = history.record(entry("clock stepped back", new Date("2025-06-01T10:00:00Z"))) ?? 0;
    expect(history.get(id).createdAt).toBe("2025-06-01T11:00:00.000Z");
  });

  test("never reuses the id of a deleted entry", () => {
    const { history } = clocked(new Date("2025-06-01T12:00:00Z"));
    const first = history.record(entry("one", new Date())) ?? 0;
    history.remove(first);
    expect(history.record(entry("two", new Date()))).toBe(first + 1);
  });
});

describe("history retention", () => {
  const now = new Date("2025-06-01T12:00:00Z");

  test("purgeExpired deletes entries older than history_retention_days, none when unset", () => {
    const { history, settings, published } = clocked(now);
    history.record(entry("stale", new Date(now.getTime() - 10 * day)));
    history.record(entry("fresh", new Date(now.getTime() - 2 * day)));
    expect(history.purgeExpired()).toBe(0);
    settings.set("history_retention_days", 7);
    expect(history.purgeExpired()).toBe(1);
    expect(history.list(listAll).items.map((item) => item.finalText)).toEqual(["fresh"]);
    expect(published.at(-1)).toMatchObject({ type: "history.purged", deleted: 1 });
  });

  test("startRetention purges at once and then on every interval until stopped", async () => {
    const { history, settings } = clocked(now, 20);
    running = history;
    settings.set("history_retention_days", 1);
    history.record(entry("stale", new Date(now.getTime() - 3 * day)));
    history.startRetention();
    expect(history.list(listAll).total).toBe(0);
    history.record(entry("stale again", new Date(now.getTime() - 3 * day)));
    await Bun.sleep(60);
    expect(history.list(listAll).total).toBe(0);
    history.stopRetention();
    history.record(entry("stale once more", new Date(now.getTime() - 3 * day)));
    await Bun.sleep(60);
    expect(history.list(listAll).total).toBe(1);
  });

  test("PUT history_retention_days purges immediately through the API", async () => {
    const t = createTestApp();
    t.services.history.record(entry("ancient", new Date(Date.now() - 400 * day)));
    t.services.history.record(entry("recent", new Date(Date.now() - hour)));
    const res = await t.json("/api/settings/history_retention_days", "PUT", { value: 365 });
    expect(res.status).toBe(200);
    const page = (await (await t.request("/api/history")).json()) as { total: number };
    expect(page.total).toBe(1);
    expect(t.events.map((event) => event.type)).toContain("history.purged");
  });
});

describe("GET /api/history/stats", () => {
  test("answers on a seeded table with the requested number of days", async () => {
    const t = createTestApp();
    const now = Date.now();
    t.services.history.record(entry("long ago", new Date(now - 400 * day)));
    t.services.history.record(entry("three days ago", new Date(now - 3 * day)));
    t.services.history.record(entry("today one", new Date(now)));
    const res = await t.request("/api/history/stats?days=10");
    expect(res.status).toBe(200);
    const stats = (await res.json()) as { sessions: number; today: number; days: { sessions: number }[] };
    expect(stats.sessions).toBe(3);
    expect(stats.today).toBe(1);
    expect(stats.days).toHaveLength(10);
    expect(stats.days.at(-1)?.sessions).toBe(1);
    expect(stats.days.at(-4)?.sessions).toBe(1);
    expect((await (await t.request("/api/history/stats")).json()) as object).toMatchObject({
      days: expect.any(Array),
    });
  });

  test.each(["days=0", "days=366", "days=x", "tzOffsetMinutes=900", "tzOffsetMinutes=1.5"])(
    "400 for %s",
    async (query) => {
      const t = createTestApp();
      const res = await t.request(`/api/history/stats?${query}`);
      expect(res.status).toBe(400);
    },
  );
});

const listAll = {
  limit: 500,
  offset: 0,
  orderBy: { field: "createdAt", direction: "DESC" },
} as const;
