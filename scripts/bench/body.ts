// The largest bodies svc accepts, JSON and multipart, against a real svc on 127.0.0.1: how long
// the answer takes, how long GET /api/health waits meanwhile (polled back to back: p99 and max),
// and how much the server's RSS grows. Each case gets a fresh server, measured once its start-up
// work (the voice-activity detector, the engine) is done, so one case's garbage and svc's warm-up
// never count against the next. BENCH_SVC_ROOT=<checkout> runs another checkout's src/main.ts (an
// older commit, for before/after).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { fmt, percentile, pollHealth, rssMb, startedUp, startServer, table } from "./util.ts";

const root = resolve(process.env.BENCH_SVC_ROOT ?? join(import.meta.dir, "../.."));
const mib = 1024 * 1024;
const targets = { answerMs: 200, healthMs: 50, rssMb: 100 };

interface Case {
  name: string;
  method: "POST" | "PUT";
  path: string;
  body: () => string | Uint8Array<ArrayBuffer>;
  /** Default application/json. */
  contentType?: string;
}

const boundary = "svc-bench-boundary";

/** A multipart/form-data body: a second of silence as the file, and one text field of `fieldBytes`. */
function multipart(fieldBytes: number): Uint8Array<ArrayBuffer> {
  const text = (value: string) => new TextEncoder().encode(value);
  const head = (name: string, extra = "") =>
    text(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"${extra}\r\n`);
  return new Uint8Array(
    Buffer.concat([
      head("file", '; filename="silence.wav"'),
      text("Content-Type: audio/wav\r\n\r\n"),
      encodeWav(new Float32Array(16_000)),
      text("\r\n"),
      head("prompt"),
      text(`\r\n${"x".repeat(fieldBytes)}\r\n`),
      head("model"),
      text(`\r\nwhisper-1\r\n--${boundary}--\r\n`),
    ]),
  );
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
  {
    name: "32 MiB multipart field (/v1, SVC_MAX_BODY_SIZE)",
    method: "POST",
    path: "/v1/audio/transcriptions",
    body: () => multipart(32 * mib),
    contentType: `multipart/form-data; boundary=${boundary}`,
  },
  {
    name: "63 MiB multipart field (/api/transcribe)",
    method: "POST",
    path: "/api/transcribe",
    body: () => multipart(63 * mib),
    contentType: `multipart/form-data; boundary=${boundary}`,
  },
];

interface Measured {
  status: number;
  bytes: number;
  answerMs: number;
  healthMaxMs: number;
  healthP99Ms: number;
  healthP50Ms: number;
  rssGrowthMb: number;
}

async function measure(item: Case): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-body-"));
  const logFile = join(dir, "svc.log");
  const server = await startServer(
    [process.execPath, join(root, "src/main.ts")],
    { SVC_DB_PATH: join(dir, "svc.db"), SVC_LOG_LEVEL: "info" },
    logFile,
  );
  try {
    await startedUp(logFile);
    const made = item.body();
    const body = typeof made === "string" ? new TextEncoder().encode(made) : made;
    Bun.gc(true);
    await Bun.sleep(200);
    const baseline = rssMb(server.proc.pid);
    const poller = pollHealth(server.url, server.proc.pid);
    await Bun.sleep(50);
    const started = performance.now();
    const res = await fetch(`${server.url}${item.path}`, {
      method: item.method,
      headers: { "content-type": item.contentType ?? "application/json" },
      body,
    });
    await res.arrayBuffer();
    const answerMs = performance.now() - started;
    await Bun.sleep(50);
    const { ms: health, peakRssMb: peak } = await poller.stop();
    const sorted = [...health].sort((a, b) => a - b);
    return {
      status: res.status,
      bytes: body.byteLength,
      answerMs,
      healthMaxMs: sorted.at(-1) ?? Number.NaN,
      healthP99Ms: percentile(sorted, 99),
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
    `svc from ${root}; targets: answer ≤ ${targets.answerMs} ms, health p99 ≤ ${targets.healthMs} ms, RSS growth ≤ ${targets.rssMb} MiB`,
  );
  const rows: (string | number)[][] = [
    [
      "case",
      "MiB",
      "status",
      "answer ms",
      "÷target",
      "health p50",
      "health p99",
      "÷target",
      "health max",
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
      fmt(m.healthP50Ms),
      fmt(m.healthP99Ms),
      ratio(m.healthP99Ms, targets.healthMs),
      fmt(m.healthMaxMs),
      fmt(m.rssGrowthMb),
      ratio(m.rssGrowthMb, targets.rssMb),
    ]);
  }
  table(rows);
}
