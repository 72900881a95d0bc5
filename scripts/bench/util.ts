import { existsSync, readFileSync } from "node:fs";
import type { Subprocess } from "bun";

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

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

export const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");

export function table(rows: (string | number)[][]): void {
  const widths =
    rows[0]?.map((_, col) => Math.max(...rows.map((row) => String(row[col] ?? "").length))) ?? [];
  for (const row of rows) {
    console.log(row.map((cell, col) => String(cell).padEnd(widths[col] ?? 0)).join("  "));
  }
}
