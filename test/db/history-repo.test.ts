import { describe, expect, test } from "bun:test";
import { openDatabase } from "../../src/db/database.ts";
import { createHistoryRepo, type HistoryListOptions } from "../../src/db/history-repo.ts";
import type { HistoryRow } from "../../src/db/history-row.ts";
import { runMigrations } from "../../src/db/migrate.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import { toHistoryRow } from "../../src/history/items.ts";

function fresh() {
  const db = openDatabase(":memory:", { migrations });
  runMigrations(db, migrations);
  return { db, repo: createHistoryRepo(db) };
}

const integrity = (db: ReturnType<typeof fresh>["db"]) =>
  db.run("INSERT INTO history_fts (history_fts, rank) VALUES ('integrity-check', 1)");

function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

describe("history table and index", () => {
  test("the FTS index stays in step through inserts, text updates, deletes and clearing", () => {
    const { db, repo } = fresh();
    const at = new Date("2025-01-01T00:00:00Z");
    for (const text of ["alpha beta", "gamma delta", "epsilon"]) {
      repo.insert(
        toHistoryRow(
          { rawText: text, finalText: text, engine: "e", audioDurationMs: 1, processingMs: 1 },
          at,
        ),
      );
    }
    db.run("UPDATE history SET final_text = 'zeta' WHERE id = 2");
    repo.deleteById(1);
    integrity(db);
    const search = (match: string) =>
      repo.list({ match, sort: "createdAt", direction: "DESC", limit: 10, offset: 0 }).rows.map((r) => r.id);
    expect(search('"zeta"*')).toEqual([2]);
    expect(search('"alpha"*')).toEqual([]);
    expect(search('"gamma"*')).toEqual([2]);
    expect(repo.deleteAll()).toBe(2);
    integrity(db);
    expect(search('"epsilon"*')).toEqual([]);
  });
});

describe("history totals", () => {
  test("the trigger-kept totals equal a recount through inserts, updates, deletes and clearing", () => {
    const { db, repo } = fresh();
    const next = random(3);
    const recount = () =>
      db
        .query(
          "SELECT count(*) AS sessions, coalesce(sum(word_count), 0) AS words, coalesce(sum(audio_duration_ms), 0) AS audio_ms, coalesce(sum(processing_ms), 0) AS processing_ms FROM history",
        )
        .get();
    for (let i = 0; i < 200; i++) {
      const text = "word ".repeat(1 + Math.floor(next() * 9));
      const at = new Date(Date.parse("2025-01-01") + i * 1000);
      repo.insert(
        toHistoryRow(
          {
            rawText: text,
            finalText: text,
            engine: "e",
            audioDurationMs: next() * 9000,
            processingMs: next() * 900,
          },
          at,
        ),
      );
    }
    db.run("UPDATE history SET word_count = word_count + 1, processing_ms = 7 WHERE id % 3 = 0");
    for (let id = 1; id <= 200; id += 4) repo.deleteById(id);
    expect(repo.totals()).toEqual(recount() as ReturnType<typeof repo.totals>);
    expect(repo.totals().sessions).toBe(150);
    repo.deleteAll();
    expect(repo.totals()).toEqual({ sessions: 0, words: 0, audio_ms: 0, processing_ms: 0 });
  });
});

describe("history list plans", () => {
  // Every plan (FTS in rowid order, FTS probed by a sort index, LIKE, plain) must agree with a
  // straightforward filter-and-sort over the same rows.
  test("agree with a naive reference on random data and random queries", () => {
    const { repo } = fresh();
    const next = random(7);
    const words = ["red", "green", "blue", "cyan", "magenta", "50%", "a_b"];
    const start = Date.parse("2025-01-01T00:00:00Z");
    const all: HistoryRow[] = [];
    let time = start;
    for (let i = 0; i < 300; i++) {
      time += Math.floor(next() * 6) * 3_600_000;
      const text = Array.from(
        { length: 1 + Math.floor(next() * 4) },
        () => words[Math.floor(next() * words.length)],
      ).join(" ");
      const row = toHistoryRow(
        {
          rawText: text,
          finalText: text,
          engine: "e",
          audioDurationMs: Math.floor(next() * 5) * 100,
          processingMs: Math.floor(next() * 3),
        },
        new Date(time),
      );
      const { id } = repo.insert(row);
      all.push({ ...row, id });
    }
    const sortKeys = {
      createdAt: "id",
      audioDurationMs: "audio_duration_ms",
      processingMs: "processing_ms",
      wordCount: "word_count",
    } as const;
    const iso = (offsetHours: number) => new Date(start + offsetHours * 3_600_000).toISOString();
    for (let round = 0; round < 400; round++) {
      const word = words[Math.floor(next() * 5)] ?? "red";
      const options: HistoryListOptions = {
        sort:
          (["createdAt", "audioDurationMs", "processingMs", "wordCount"] as const)[Math.floor(next() * 4)] ??
          "createdAt",
        direction: next() < 0.5 ? "ASC" : "DESC",
        limit: 1 + Math.floor(next() * 40),
        offset: Math.floor(next() * 60),
        ...(next() < 0.5 ? { match: `"${word}"*` } : next() < 0.3 ? { like: "%\\%%" } : {}),
        ...(next() < 0.4 ? { from: iso(Math.floor(next() * 900)) } : {}),
        ...(next() < 0.4 ? { until: iso(Math.floor(next() * 900)) } : {}),
      };
      const expected = all
        .filter((row) => options.match === undefined || row.final_text.split(" ").includes(word))
        .filter((row) => options.like === undefined || row.final_text.includes("%"))
        .filter((row) => options.from === undefined || row.created_at >= (options.from ?? ""))
        .filter((row) => options.until === undefined || row.created_at < (options.until ?? ""))
        .sort((a, b) => {
          const key = sortKeys[options.sort];
          const sign = options.direction === "ASC" ? 1 : -1;
          return (a[key] - b[key] || a.id - b.id) * sign;
        });
      const got = repo.list(options);
      expect({ round, total: got.total }).toEqual({ round, total: expected.length });
      expect(got.rows.map((row) => row.id)).toEqual(
        expected.slice(options.offset, options.offset + options.limit).map((row) => row.id),
      );
    }
  });
});
