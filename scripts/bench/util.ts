import { readFileSync } from "node:fs";
import type { Subprocess } from "bun";

export interface Started {
  proc: Subprocess<"ignore", "pipe", "ignore">;
  url: string;
  /** Milliseconds from spawn to the first 200 from /api/health. */
  readyMs: number;
}

/**
 * Spawns a server that prints `{"msg":"svc listening","url":…}` (PORT=0) and waits until
 * /api/health answers. Output after that line is drained and dropped.
 */
export async function startServer(cmd: string[], env: Record<string, string> = {}): Promise<Started> {
  const started = performance.now();
  const proc = Bun.spawn(cmd, {
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", SVC_LOG_LEVEL: "info", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "ignore",
  });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let url = "";
  while (!url) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${cmd.join(" ")} exited before listening`);
    buffer += decoder.decode(value, { stream: true });
    url = /"url":"(http:\/\/[^"]+)"/.exec(buffer)?.[1] ?? "";
  }
  (async () => {
    while (!(await reader.read()).done) {
      // Drain the request log so the server never blocks on a full pipe.
    }
  })();
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
