// Foundation benchmark: GET /api/health throughput of svc beside a bare Bun.serve handler and the
// same minimal Hono app on Node, load from a separate autocannon process; then the compiled
// binary's start-to-healthy time and idle RSS.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fmt, percentile, rssMb, startServer, table } from "./util.ts";

const root = resolve(import.meta.dir, "../..");
const binary = join(root, "dist", "svc");
const seconds = Number(process.env.BENCH_SECONDS ?? 5);

async function ensureBinary(): Promise<void> {
  if (existsSync(binary)) return;
  const proc = Bun.spawn([process.execPath, "scripts/build.ts"], { cwd: root, stdout: "ignore" });
  if ((await proc.exited) !== 0) throw new Error("build failed");
}

// wrk (Debian) is preferred: written in C, it leaves more of the second core to the server than
// autocannon (npm, the fallback) does, so the ratios measure the servers, not the load generator.
const wrk = Bun.which("wrk");
const generator = wrk ? `wrk -t1 -c64 -d${seconds}s` : `autocannon -c 64 -d ${seconds}`;

async function load(url: string): Promise<number> {
  if (wrk) {
    const proc = Bun.spawn([wrk, "-t1", "-c64", `-d${seconds}s`, url], { stdout: "pipe", stderr: "ignore" });
    const out = await new Response(proc.stdout).text();
    await proc.exited;
    if (/Non-2xx|Socket errors/.test(out)) throw new Error(`${url}: errors under load\n${out}`);
    return Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN);
  }
  const proc = Bun.spawn(
    [
      "node",
      join(root, "node_modules/autocannon/autocannon.js"),
      "-c",
      "64",
      "-d",
      String(seconds),
      "-j",
      url,
    ],
    { stdout: "pipe", stderr: "ignore" },
  );
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const result = JSON.parse(out) as { requests: { average: number }; non2xx: number; errors: number };
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

async function throughput(cmd: string[], env: Record<string, string> = {}): Promise<number> {
  const server = await startServer(cmd, env);
  try {
    await load(`${server.url}/api/health`); // warm-up round, discarded
    return await load(`${server.url}/api/health`);
  } finally {
    server.proc.kill();
    await server.proc.exited;
  }
}

async function startup(runs: number): Promise<{ readyMs: number[]; rss: number[] }> {
  const readyMs: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < runs; i++) {
    const dir = mkdtempSync(join(tmpdir(), "svc-bench-"));
    const server = await startServer([binary], { SVC_DB_PATH: join(dir, "svc.db") });
    readyMs.push(server.readyMs);
    await Bun.sleep(1000);
    rss.push(rssMb(server.proc.pid));
    server.proc.kill();
    await server.proc.exited;
    rmSync(dir, { recursive: true, force: true });
  }
  return { readyMs: readyMs.sort((a, b) => a - b), rss: rss.sort((a, b) => a - b) };
}

export async function run(): Promise<void> {
  await ensureBinary();
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-"));
  const svcEnv = { SVC_DB_PATH: join(dir, "svc.db") };
  const bare = await throughput([process.execPath, join(root, "scripts/bench/peers/bare-bun.ts")]);
  const svc = await throughput([binary], svcEnv);
  const honoNode = await throughput(["node", join(root, "scripts/bench/peers/hono-node.mjs")]);
  rmSync(dir, { recursive: true, force: true });
  console.log(`\nGET /api/health, ${generator} (second round of two), req/s`);
  table([
    ["server", "req/s", "svc ratio", "target"],
    ["svc (compiled binary, request log on)", fmt(svc, 0), "1.00", ""],
    ["bare Bun.serve", fmt(bare, 0), fmt(svc / bare, 2), "svc/bare ≥ 0.80"],
    ["Hono on Node (@hono/node-server)", fmt(honoNode, 0), fmt(svc / honoNode, 2), "svc/node ≥ 2.00"],
  ]);
  const { readyMs, rss } = await startup(10);
  console.log("\nCompiled binary, 10 starts with a fresh database");
  table([
    ["measure", "p50", "max", "target"],
    ["start to healthy (ms)", fmt(percentile(readyMs, 50)), fmt(readyMs.at(-1) ?? Number.NaN), "≤ 150"],
    ["idle RSS after 1 s (MB)", fmt(percentile(rss, 50)), fmt(rss.at(-1) ?? Number.NaN), "≤ 60"],
  ]);
}

if (import.meta.main) await run();
