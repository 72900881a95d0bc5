// Large JSON bodies against a real svc on 127.0.0.1: how long the answer takes, how long
// GET /api/health waits meanwhile (polled back to back), and how much the server's RSS grows.
// Each case gets a fresh server, so one case's garbage never counts against the next.
// BENCH_SVC_ROOT=<checkout> runs another checkout's src/main.ts (an older commit, for before/after).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fmt, percentile, rssMb, startServer, table } from "./util.ts";

const root = resolve(process.env.BENCH_SVC_ROOT ?? join(import.meta.dir, "../.."));
const mib = 1024 * 1024;
const targets = { answerMs: 200, healthMs: 50, rssMb: 100 };

interface Case {
  name: string;
  method: "POST" | "PUT";
  path: string;
  body: () => string;
}

/** `[1,1,…]` of about `bytes` bytes: the most elements (and so the most problems) per byte. */
const ones = (bytes: number) => `[${"1,".repeat(Math.max(0, Math.floor(bytes / 2) - 1))}1]`;

/** A full export at the entry limits with everyday lengths: 50 000 dictionary and 10 000 vocabulary entries. */
function fullExport(): string {
  const dictionary = Array.from({ length: 50_000 }, (_, i) => ({
    key: `shortcut number ${i}`,
    value: `the phrase it stands for, written out in full (${i})`,
  }));
  const vocabulary = Array.from({ length: 10_000 }, (_, i) => ({
    term: `Term${i}`,
    notes: "a proper noun the engine should know",
  }));
  return JSON.stringify({ format: "svc-export", version: 1, settings: {}, dictionary, vocabulary }, null, 2);
}

const cases: Case[] = [
  {
    name: "1 MiB array as a setting (SVC_MAX_JSON_SIZE)",
    method: "PUT",
    path: "/api/settings/filler_words",
    body: () => `{"value":${ones(mib - 16)}}`,
  },
  { name: "1 MiB array to a JSON route", method: "POST", path: "/api/formats", body: () => ones(mib - 8) },
  {
    name: "16 MiB array to a JSON route",
    method: "POST",
    path: "/api/formats",
    body: () => ones(16 * mib),
  },
  {
    name: "32 MiB array as an import (SVC_MAX_IMPORT_SIZE)",
    method: "POST",
    path: "/api/import",
    body: () => `{"format":"svc-export","version":1,"dictionary":${ones(32 * mib - 64)}}`,
  },
  {
    name: "full export at the entry limits",
    method: "POST",
    path: "/api/import?mode=replace",
    body: fullExport,
  },
];

interface Measured {
  status: number;
  bytes: number;
  answerMs: number;
  healthMaxMs: number;
  healthP50Ms: number;
  rssGrowthMb: number;
}

async function measure(item: Case): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-body-"));
  const server = await startServer([process.execPath, join(root, "src/main.ts")], {
    SVC_DB_PATH: join(dir, "svc.db"),
    SVC_LOG_LEVEL: "info",
  });
  try {
    const body = new TextEncoder().encode(item.body());
    Bun.gc(true);
    await Bun.sleep(200);
    const baseline = rssMb(server.proc.pid);
    let peak = baseline;
    const health: number[] = [];
    let done = false;
    const poll = (async () => {
      while (!done) {
        const started = performance.now();
        await fetch(`${server.url}/api/health`).then((res) => res.arrayBuffer());
        health.push(performance.now() - started);
        peak = Math.max(peak, rssMb(server.proc.pid));
        await Bun.sleep(5);
      }
    })();
    await Bun.sleep(50);
    const started = performance.now();
    const res = await fetch(`${server.url}${item.path}`, {
      method: item.method,
      headers: { "content-type": "application/json" },
      body,
    });
    await res.arrayBuffer();
    const answerMs = performance.now() - started;
    peak = Math.max(peak, rssMb(server.proc.pid));
    await Bun.sleep(50);
    done = true;
    await poll;
    const sorted = [...health].sort((a, b) => a - b);
    return {
      status: res.status,
      bytes: body.byteLength,
      answerMs,
      healthMaxMs: sorted.at(-1) ?? Number.NaN,
      healthP50Ms: percentile(sorted, 50),
      rssGrowthMb: peak - baseline,
    };
  } finally {
    server.proc.kill();
    await server.proc.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

const ratio = (value: number, target: number) => `${fmt(value / target, 2)}×`;

export async function run(): Promise<void> {
  console.log(
    `svc from ${root}; targets: answer ≤ ${targets.answerMs} ms, health ≤ ${targets.healthMs} ms, RSS growth ≤ ${targets.rssMb} MiB`,
  );
  const rows: (string | number)[][] = [
    [
      "case",
      "MiB",
      "status",
      "answer ms",
      "÷target",
      "health max ms",
      "÷target",
      "health p50",
      "RSS +MiB",
      "÷target",
    ],
  ];
  for (const item of cases) {
    const m = await measure(item);
    rows.push([
      item.name,
      fmt(m.bytes / mib, 1),
      m.status,
      fmt(m.answerMs),
      ratio(m.answerMs, targets.answerMs),
      fmt(m.healthMaxMs),
      ratio(m.healthMaxMs, targets.healthMs),
      fmt(m.healthP50Ms),
      fmt(m.rssGrowthMb),
      ratio(m.rssGrowthMb, targets.rssMb),
    ]);
  }
  table(rows);
}
