// Dictionary import benchmark: 10k entries through POST /api/dictionary/import in-process, over a file
// database (WAL, synchronous=FULL, as svc runs). Side by side: the same entries added one POST at a
// time, which is what a client without a bulk import has to do. Target: 10k-entry import ≤ 1 s.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { toCsv } from "../../src/data/csv.ts";
import { openDatabase } from "../../src/db/database.ts";
import { createDictionaryRepo } from "../../src/db/dictionary-repo.ts";
import { runMigrations } from "../../src/db/migrate.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import { createEventBus } from "../../src/events.ts";
import { createApiDocs } from "../../src/http/api-docs.ts";
import { createErrorRenderer } from "../../src/http/errors.ts";
import type { AppEnv } from "../../src/http/types.ts";
import { createDictionaryRoutes } from "../../src/routes/dictionary.ts";
import { fmt, percentile, table } from "./util.ts";

const entries = Number(process.env.BENCH_DICTIONARY_ENTRIES ?? 10_000);
const oneByOne = Math.min(entries, 1000);
const rounds = 5;
const targetMs = 1000;

type Item = { key: string; value: string };

// Keys and values shaped like real entries: a few words, some accents, commas and quotes for the CSV.
function items(count: number, variant = ""): Item[] {
  const words = ["acme", "café", "sprint", "Zoë", "deploy", "q3", "invoice", "kubernetes", "naïve", "team"];
  return Array.from({ length: count }, (_, i) => ({
    key: `${words[i % words.length]} ${i.toString(36)} ${words[(i * 7) % words.length]}`,
    value: `${variant}Replacement ${i}, "quoted" and ${words[(i * 3) % words.length]} text`,
  }));
}

function server(dir: string, name: string) {
  const db = openDatabase(join(dir, `${name}.db`), { migrations });
  runMigrations(db, migrations);
  const dictionary = createDictionaryRepo(db);
  const routes = createDictionaryRoutes({ dictionary, events: createEventBus(), docs: createApiDocs() });
  const app = new Hono<AppEnv>().route(routes.prefix, routes.app);
  app.onError(createErrorRenderer(db.filename));
  const send = async (path: string, type: string, body: string) => {
    const res = await app.request(path, { method: "POST", headers: { "content-type": type }, body });
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res;
  };
  return { db, app, dictionary, send };
}

type Server = ReturnType<typeof server>;
type Step = (s: Server) => Promise<unknown>;

const json = (list: Item[]) => JSON.stringify(list);
const csv = (list: Item[]) => toCsv([["key", "value"], ...list.map((item) => [item.key, item.value])]);

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const began = performance.now();
  await fn();
  return performance.now() - began;
}

/** Runs `fn` on a fresh database `rounds` times; `prepare` seeds it first (not timed). */
async function measure(dir: string, name: string, fn: Step, prepare?: Step) {
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const s = server(dir, `${name}-${round}`);
    await prepare?.(s);
    samples.push(await timed(() => fn(s)));
    s.db.close();
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), max: samples.at(-1) ?? Number.NaN };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-dictionary-"));
  try {
    const list = items(entries);
    const changed = items(entries, "new ");
    const other = items(entries).map((item) => ({ ...item, key: `other ${item.key}` }));
    const importPath = "/api/dictionary/import";
    const load = (s: Server) => s.send(importPath, "application/json", json(list));
    const cases: [name: string, step: Step, prepare?: Step][] = [
      ["import JSON into an empty dictionary", load],
      ["import CSV into an empty dictionary", (s) => s.send(importPath, "text/csv", csv(list))],
      ["re-import the same file (all unchanged)", load, load],
      ["import with every value changed", (s) => s.send(importPath, "application/json", json(changed)), load],
      [
        "mode=replace with 10k other keys",
        (s) => s.send(`${importPath}?mode=replace`, "application/json", json(other)),
        load,
      ],
      ["export CSV", async (s) => (await s.app.request("/api/dictionary/export?format=csv")).text(), load],
    ];
    const out: (string | number)[][] = [["case", "entries", "p50 ms", "max ms", "target"]];
    let importP50 = Number.NaN;
    for (const [index, [name, step, prepare]] of cases.entries()) {
      const t = await measure(dir, `case${index}`, step, prepare);
      if (index === 0) importP50 = t.p50;
      const verdict = t.max <= targetMs ? `ok (≤${targetMs})` : `OVER ${targetMs}`;
      out.push([name, entries, fmt(t.p50), fmt(t.max), name.startsWith("export") ? "" : verdict]);
    }
    const single = server(dir, "one-by-one");
    const slice = list.slice(0, oneByOne);
    const sequentialMs = await timed(async () => {
      for (const item of slice)
        await single.send("/api/dictionary", "application/json", JSON.stringify(item));
    });
    single.db.close();
    const perEntry = sequentialMs / oneByOne;
    out.push([`one POST per entry (${oneByOne} measured, scaled)`, entries, fmt(perEntry * entries), "", ""]);
    table(out);
    console.log(
      `bulk import vs one POST per entry: ${fmt((perEntry * entries) / importP50)}x faster ` +
        `(${fmt(perEntry, 3)} ms per single POST, each its own fsync'd transaction)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await run();
