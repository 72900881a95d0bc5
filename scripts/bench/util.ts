import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { type SyntheticPreset, syntheticModel } from "../../test/helpers/synthetic-model.ts";

export interface Started {
  proc: Subprocess;
  url: string;
  /** Milliseconds from spawn to the first 200 from /api/health. */
  readyMs: number;
}

const listening = /"url":"(http:\/\/[^"]+)"/;

/**
 * Spawns a server that prints `{"msg":"svc listening","url":…}` (PORT=0) and waits until
 * /api/health answers. Its output goes to `logFile` when given; otherwise this process drains it
 * from a pipe and drops it.
 */
export async function startServer(
  cmd: string[],
  env: Record<string, string> = {},
  logFile?: string,
): Promise<Started> {
  const started = performance.now();
  const proc = Bun.spawn(cmd, {
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", SVC_LOG_LEVEL: "info", ...env },
    stdin: "ignore",
    stdout: logFile ? Bun.file(logFile) : "pipe",
    stderr: "ignore",
  });
  const url = logFile ? await urlFromFile(proc, logFile) : await urlFromPipe(proc, cmd);
  for (;;) {
    const ok = await fetch(`${url}/api/health`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) break;
    await Bun.sleep(2);
  }
  return { proc, url, readyMs: performance.now() - started };
}

async function urlFromPipe(proc: Subprocess, cmd: string[]): Promise<string> {
  if (!(proc.stdout instanceof ReadableStream)) throw new Error("no pipe");
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let url = "";
  while (!url) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${cmd.join(" ")} exited before listening`);
    buffer += decoder.decode(value, { stream: true });
    url = listening.exec(buffer)?.[1] ?? "";
  }
  (async () => {
    while (!(await reader.read()).done) {
      // Drain the request log so the server never blocks on a full pipe.
    }
  })();
  return url;
}

async function urlFromFile(proc: Subprocess, logFile: string): Promise<string> {
  for (;;) {
    const url = existsSync(logFile) ? listening.exec(readFileSync(logFile, "utf8"))?.[1] : undefined;
    if (url) return url;
    if (proc.exitCode !== null) throw new Error(`server exited before listening; see ${logFile}`);
    await Bun.sleep(2);
  }
}

/** Waits until a server logging to `logFile` has said its start-up work is done: the detector and the engine. */
export async function startedUp(logFile: string): Promise<void> {
  // The start's last line: whether the selected engine can load ("speech engine ready…", "…not
  // loaded yet" or "…unavailable"); nothing heavy loads at start.
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline) {
    const log = existsSync(logFile) ? readFileSync(logFile, "utf8") : "";
    if (log.includes('"msg":"speech engine')) return;
    await Bun.sleep(50);
  }
  throw new Error(`svc did not finish starting within 30 s; see ${logFile}`);
}

/** What a health poller saw: each GET /api/health's milliseconds and the server's peak RSS. */
export interface HealthSeen {
  ms: number[];
  peakRssMb: number;
}

/**
 * Polls GET /api/health back to back (5 ms apart) until `stop()`, noting each answer's time and
 * the server's RSS: how long anyone else waits while svc works on something.
 */
export function pollHealth(url: string, pid: number): { stop(): Promise<HealthSeen> } {
  const seen: HealthSeen = { ms: [], peakRssMb: rssMb(pid) };
  let done = false;
  const loop = (async () => {
    while (!done) {
      const started = performance.now();
      await fetch(`${url}/api/health`).then((res) => res.arrayBuffer());
      seen.ms.push(performance.now() - started);
      seen.peakRssMb = Math.max(seen.peakRssMb, rssMb(pid));
      await Bun.sleep(5);
    }
  })();
  return {
    async stop() {
      done = true;
      await loop;
      return seen;
    },
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export function rssMb(pid: number): number {
  return memoryMb(pid).rss;
}

/** The process's children (svc's own: the Silero detector's process), from /proc. */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, "utf8")
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number),
    );
  } catch {
    return [];
  }
}

/**
 * Kernel figures for the process and its children, in MiB: resident now and the peak so far
 * (each process's own peak, added up). svc runs Silero in a child process: it is svc's memory too.
 */
export function memoryMb(pid: number): { rss: number; peak: number } {
  let rss = 0;
  let peak = 0;
  for (const each of [pid, ...childrenOf(pid)]) {
    try {
      const status = readFileSync(`/proc/${each}/status`, "utf8");
      const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
      rss += kb("VmRSS") / 1024;
      peak += kb("VmHWM") / 1024;
    } catch {
      // The child ended between the listing and the read.
    }
  }
  return { rss, peak };
}

let clockTicks: number | undefined;

/** CPU seconds (user + system, every thread) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which is in parentheses and may hold spaces: utime, stime are 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  clockTicks ??= Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

export const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");

export function table(rows: (string | number)[][]): void {
  const widths =
    rows[0]?.map((_, col) => Math.max(...rows.map((row) => String(row[col] ?? "").length))) ?? [];
  for (const row of rows) {
    console.log(row.map((cell, col) => String(cell).padEnd(widths[col] ?? 0)).join("  "));
  }
}

/**
 * A figure measured over rounds as `median (p10–p90)`. The p10 and p90 are taken as many ranks in
 * from either end, so below 11 rounds they are the minimum and maximum.
 */
export function spread(values: number[], digits = 1): string {
  const sorted = [...values].sort((a, b) => a - b);
  const last = sorted.length - 1;
  const low = sorted[Math.floor(0.1 * last)] ?? Number.NaN;
  const high = sorted[Math.ceil(0.9 * last)] ?? Number.NaN;
  return `${fmt(percentile(sorted, 50), digits)} (${fmt(low, digits)}–${fmt(high, digits)})`;
}

export const median = (values: number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

const taskset = Bun.which("taskset");
/** Whether benches can keep apart what they run: taskset is there and there are two cores. */
export const pinnable = taskset !== null && navigator.hardwareConcurrency >= 2;

/** `cmd` run on one core, where cores can be pinned. */
export const onCore = (core: number, cmd: string[]): string[] =>
  pinnable && taskset ? [taskset, "-c", String(core), ...cmd] : cmd;

/**
 * Pins this process, every thread of it (JIT and GC helpers too), to one core; `undefined` gives
 * it every core back. Returns whether it is pinned.
 */
export function pinSelf(core: number | undefined): boolean {
  if (!pinnable || !taskset) return false;
  const cores = core === undefined ? `0-${navigator.hardwareConcurrency - 1}` : String(core);
  const result = Bun.spawnSync([taskset, "-a", "-p", "-c", cores, String(process.pid)], { stdout: "ignore" });
  return result.exitCode === 0 && core !== undefined;
}

/** `bun run bench live --contended`: the speech benches measure on a machine that is busy elsewhere. */
export const contended = process.argv.includes("--contended") || process.env.BENCH_CONTENDED === "1";

/**
 * One busy loop per core, each pinned to its core where taskset is there: what a homelab box's
 * media server and containers do to svc. Ends with `stop()`, and with this process in any case.
 */
export function busyLoops(): { label: string; stop(): Promise<void> } {
  const cores = navigator.hardwareConcurrency;
  const loops = Array.from({ length: cores }, (_, core) =>
    Bun.spawn(onCore(core, ["sh", "-c", "while :; do :; done"]), { stdout: "ignore", stderr: "ignore" }),
  );
  return {
    label: `${cores} busy loops${pinnable ? ", one pinned to each core" : ""}`,
    async stop() {
      for (const loop of loops) loop.kill();
      await Promise.all(loops.map((loop) => loop.exited));
    },
  };
}

/** The median wall time of `repeats` sequential runs of `fn`, in ms. */
export async function timedMedian(repeats: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  return median(times);
}

/** A client of a running svc for the benches: settings, and a timed POST /api/transcribe. */
export function svcClient(url: string) {
  return {
    async put(key: string, value: unknown): Promise<void> {
      const res = await fetch(`${url}/api/settings/${key}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ value }),
      });
      if (!res.ok) throw new Error(`${key}: ${res.status} ${await res.text()}`);
    },
    /** Milliseconds until the whole answer has arrived. */
    async post(wav: Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}): Promise<number> {
      const started = performance.now();
      const res = await fetch(`${url}/api/transcribe`, {
        method: "POST",
        body: wav,
        headers: { "content-type": "audio/wav", ...headers },
      });
      if (!res.ok) throw new Error(`transcribe: ${res.status} ${await res.text()}`);
      await res.json();
      return performance.now() - started;
    },
  };
}

/**
 * svc from the sources in a fresh folder, with the synthetic base.en-shaped model as its whisper
 * model on 2 threads: the setup of the benches that time the speech path.
 */
export async function startWhisperSvc(
  name: string,
  env: Record<string, string> = {},
  /** Synthetic models installed beside base.en (`stt_model` picks one). */
  also: readonly SyntheticPreset[] = [],
) {
  const dir = mkdtempSync(join(tmpdir(), `svc-bench-${name}-`));
  mkdirSync(join(dir, "models"));
  copyFileSync(syntheticModel("base.en"), join(dir, "models", "ggml-base.en.bin"));
  for (const preset of also) copyFileSync(syntheticModel(preset), join(dir, "models", `ggml-${preset}.bin`));
  // BENCH_SVC_ROOT=<checkout> runs another checkout's server, for before/after figures.
  const root = resolve(process.env.BENCH_SVC_ROOT ?? join(import.meta.dir, "../.."));
  const server = await startServer([process.execPath, join(root, "src/main.ts")], {
    SVC_DB_PATH: join(dir, "svc.db"),
    SVC_MODELS_DIR: join(dir, "models"),
    ...env,
  });
  const client = svcClient(server.url);
  await client.put("whisper_threads", 2);
  return {
    server,
    ...client,
    /** Caps whisper's tokens; the change loads the model anew, so `warmUp` (a short clip) pays for that now. */
    async useCap(tokens: number, warmUp: Uint8Array<ArrayBuffer>): Promise<void> {
      await client.put("whisper_max_tokens", tokens);
      await client.post(warmUp);
    },
    async stop(): Promise<void> {
      server.proc.kill();
      await server.proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
