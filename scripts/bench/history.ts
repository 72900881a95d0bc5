// History benchmark: list pages and FTS search on a 100k-entry history in a file database
// (WAL, synchronous=FULL, as svc runs), measured through the history routes in-process, beside a plain
// LIKE scan of the same rows to show what the index buys. Targets: ≤ 20 ms p95 each.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { type Database, openDatabase } from "../../src/db/database.ts";
import { createHistoryRepo } from "../../src/db/history-repo.ts";
import { runMigrations } from "../../src/db/migrate.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import { createSettingsRepo } from "../../src/db/settings-repo.ts";
import { createEventBus } from "../../src/events.ts";
import { toHistoryRow } from "../../src/history/items.ts";
import { createHistoryService } from "../../src/history/service.ts";
import { createApiDocs } from "../../src/http/api-docs.ts";
import { createErrorRenderer } from "../../src/http/errors.ts";
import type { AppEnv } from "../../src/http/types.ts";
import { silentLogger } from "../../src/logger.ts";
import { createHistoryRoutes } from "../../src/routes/history.ts";
import { createSettingsService } from "../../src/settings/service.ts";
import { fmt, percentile, table } from "./util.ts";

const rows = Number(process.env.BENCH_HISTORY_ROWS ?? 100_000);
const rounds = 60;
const targetMs = 20;

// A seeded generator keeps the corpus, and so the figures, the same from run to run.
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function corpus(count: number): string[] {
  const next = random(42);
  const common = "the a to and of I it is that you we for on this with be can please send".split(" ");
  const topics = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}x`);
  const named = ["meeting", "report", "invoice", "deploy", "kubernetes", "Zoë", "café", "quarterly"];
  return Array.from({ length: count }, () => {
    const words = Array.from({ length: 6 + Math.floor(next() * 30) }, () => {
      const roll = next();
      if (roll < 0.55) return common[Math.floor(next() * common.length)];
      if (roll < 0.6) return named[Math.floor(next() * named.length)];
      // Squaring skews the draw so a few topic words are frequent and most are rare.
      return topics[Math.floor(next() ** 2 * topics.length)];
    });
    return `${words.join(" ")}.`;
  });
}

function seed(db: Database): number {
  const repo = createHistoryRepo(db);
  const texts = corpus(rows);
  const start = Date.now() - 365 * 86_400_000;
  const began = performance.now();
  db.transaction(() => {
    texts.forEach((text, i) => {
      const createdAt = new Date(start + Math.floor((i / rows) * 365 * 86_400_000));
      const entry = { rawText: `um ${text}`, finalText: text, engine: "whisper", model: "base" };
      repo.insert(
        toHistoryRow(
          { ...entry, audioDurationMs: 1000 + (i % 9000), processingMs: 80 + (i % 400), createdAt },
          createdAt,
        ),
      );
    });
  })();
  return performance.now() - began;
}

const rare = `w${(2900).toString(36)}x`;

const monthAgo = (months: number) =>
  new Date(Date.now() - months * 30 * 86_400_000).toISOString().slice(0, 10);

async function time(fn: () => Promise<unknown> | unknown): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < 5; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const began = performance.now();
    await fn();
    samples.push(performance.now() - began);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-history-"));
  try {
    const db = openDatabase(join(dir, "svc.db"), { migrations });
    runMigrations(db, migrations);
    const seedMs = seed(db);
    const events = createEventBus();
    const settings = createSettingsService({ repo: createSettingsRepo(db), events, logger: silentLogger });
    const history = createHistoryService({
      repo: createHistoryRepo(db),
      settings,
      events,
      logger: silentLogger,
    });
    // Just the history routes and the error renderer: validation, query plan and JSON, as served.
    const routes = createHistoryRoutes({ history, docs: createApiDocs() });
    const app = new Hono<AppEnv>().route(routes.prefix, routes.app);
    app.onError(createErrorRenderer(db.filename));
    const get = async (query: string) => {
      const res = await app.request(`/api/history${query}`);
      if (res.status !== 200) throw new Error(`${query}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { total: number };
    };
    const likeScan = db.query<{ n: number }, [string, string]>(
      "SELECT count(*) AS n FROM history WHERE final_text LIKE ? OR raw_text LIKE ?",
    );
    console.log(`history: ${rows} entries seeded in ${fmt(seedMs / 1000, 2)} s (one transaction)`);
    const cases: [string, string, string | null][] = [
      ["list: first page (50)", "?limit=50", null],
      ["list: page at offset 50000", "?limit=50&offset=50000", null],
      ["list: by audio length desc", "?limit=50&orderBy=audioDurationMs:desc", null],
      ["list: one month (from/to)", `?limit=50&from=${monthAgo(7)}&to=${monthAgo(6)}`, null],
      ["search: common word", "?search=please", "please"],
      ["search: common word, by audio length", "?search=please&orderBy=audioDurationMs:desc", "please"],
      ["search: common word, one month", `?search=please&from=${monthAgo(7)}&to=${monthAgo(6)}`, "please"],
      ["search: common word, page at offset 5000", "?search=please&offset=5000", "please"],
      ["search: rare word", `?search=${rare}`, rare],
      ["search: two words", "?search=quarterly%20report", "quarterly"],
      ["search: prefix", "?search=kube", "kube"],
      ["search: diacritics folded", "?search=cafe", "café"],
      ["search: no match", "?search=zzzzzz", "zzzzzz"],
      ["search: FTS specials", `?search=${encodeURIComponent('"AND* NEAR(')}`, "AND"],
      ["search: punctuation only (LIKE scan)", "?search=%25", null],
      ["stats: 30 days", "/stats", null],
      ["stats: 365 days", "/stats?days=365", null],
    ];
    const out: (string | number)[][] = [
      ["case", "matches", "p50 ms", "p95 ms", "target", "LIKE p50 ms", "LIKE/FTS"],
    ];
    for (const [name, query, like] of cases) {
      const total = query.startsWith("/") ? "" : (await get(query)).total;
      const t = await time(() => get(query));
      let likeCells: (string | number)[] = ["", ""];
      if (like) {
        const pattern = `%${like}%`;
        const scan = await time(() => likeScan.get(pattern, pattern));
        likeCells = [fmt(scan.p50), `${fmt(scan.p50 / t.p50)}x`];
      }
      const verdict = t.p95 <= targetMs ? `ok (≤${targetMs})` : `OVER ${targetMs}`;
      out.push([name, total, fmt(t.p50, 2), fmt(t.p95, 2), verdict, ...likeCells]);
    }
    table(out);
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await run();
