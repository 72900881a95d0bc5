// The HTTP bench's load generator: wrk (C, epoll). A Node generator saturated near 40k req/s,
// below what one core of Bun answers, so svc and bare Bun read alike and the ratios measured it.
import { join } from "node:path";
import { onCore } from "./util.ts";

/**
 * One thread: the generator has one core to itself (the servers have the other), and a second
 * thread would only take turns on it. 32 connections keep a one-core server busy while one
 * request is in flight, with latency left mostly to the server rather than to a queue.
 */
export const THREADS = 1;
export const CONNECTIONS = 32;

const report = join(import.meta.dir, "wrk-report.lua");

export interface LoadResult {
  requests: number;
  rps: number;
  latencyMs: { p50: number; p99: number };
}

interface WrkReport {
  requests: number;
  durationUs: number;
  errors: Record<string, number>;
  latencyUs: { p50: number; p99: number };
}

export function describeWrk(seconds: number): string {
  return `wrk -t${THREADS} -c${CONNECTIONS} -d${seconds}s`;
}

/** wrk's path, or an error that says how to get it (`bun run bench` installs it on Debian as root). */
export function findWrk(): string {
  const wrk = Bun.which("wrk");
  if (wrk) return wrk;
  throw new Error(
    "bench http needs wrk, a C HTTP load generator: `sudo apt-get install wrk` on Debian or Ubuntu, " +
      "`brew install wrk` on macOS, or build it from https://github.com/wg/wrk",
  );
}

/** Loads `url` for `seconds` from `core`; throws when any request failed. */
export async function loadWith(
  wrk: string,
  url: string,
  seconds: number,
  core: number,
  headers: Record<string, string> = {},
): Promise<LoadResult> {
  const cmd = [
    wrk,
    ...Object.entries(headers).flatMap(([name, value]) => ["-H", `${name}: ${value}`]),
    `-t${THREADS}`,
    `-c${CONNECTIONS}`,
    `-d${seconds}s`,
    "--timeout",
    "2s",
    "-s",
    report,
    url,
  ];
  // A hard stop in case wrk itself hangs: a bench run must end.
  const proc = Bun.spawn(onCore(core, cmd), {
    stdout: "pipe",
    stderr: "pipe",
    timeout: (seconds + 15) * 1000,
  });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  const line = out.split("\n").find((text) => text.startsWith("{"));
  if (proc.exitCode !== 0 || !line)
    throw new Error(`wrk failed on ${url} (exit ${proc.exitCode})\n${out}${err}`);
  const result = JSON.parse(line) as WrkReport;
  const failed = Object.entries(result.errors).filter(([, count]) => count > 0);
  if (failed.length > 0)
    throw new Error(`${url}: errors under load: ${failed.map(([kind, n]) => `${n} ${kind}`).join(", ")}`);
  return {
    requests: result.requests,
    rps: result.requests / (result.durationUs / 1e6),
    latencyMs: { p50: result.latencyUs.p50 / 1000, p99: result.latencyUs.p99 / 1000 },
  };
}
