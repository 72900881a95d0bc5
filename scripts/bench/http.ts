// Foundation benchmark: GET /api/health throughput of svc beside a bare Bun.serve handler and the
// same minimal Hono app on Node, load from a separate wrk (or autocannon) process; then the compiled
// binary's start-to-healthy time and idle RSS.
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fmt, percentile, rssMb, type Started, startServer, table } from "./util.ts";

const root = resolve(import.meta.dir, "../..");
// In memory where the system has it, so that no disk writeback joins the measurement.
const logs = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "svc-bench-logs-"));
process.on("exit", () => rmSync(logs, { recursive: true, force: true }));
const binary = join(root, "dist", "svc");
const seconds = Number(process.env.BENCH_SECONDS ?? 3);

async function ensureBinary(): Promise<void> {
  if (existsSync(binary)) return;
  const proc = Bun.spawn([process.execPath, "scripts/build.ts"], { cwd: root, stdout: "ignore" });
  if ((await proc.exited) !== 0) throw new Error("build failed");
}

// wrk (Debian) is preferred: written in C, it leaves more of the second core to the server than
// autocannon (npm, the fallback) does, so the ratios measure the servers, not the load generator.
const wrk = Bun.which("wrk");
const generator = wrk ? `wrk -t1 -c64 -d${seconds}s` : `autocannon -c 64 -d ${seconds}`;

// On a machine with two or more cores, servers run on core 0 and the load generator on core 1,
// so neither steals the other's core; this removes most of the run-to-run spread.
const taskset = Bun.which("taskset");
const pinned = taskset !== null && navigator.hardwareConcurrency >= 2;
const pin = (core: number, cmd: string[]) =>
  pinned && taskset ? [taskset, "-c", String(core), ...cmd] : cmd;

/**
 * While the servers are loaded this process (which waits on the load generator) belongs with it,
 * off the servers' core. `undefined` gives it every core back.
 */
function pinSelf(core: number | undefined): void {
  const cores = core === undefined ? `0-${navigator.hardwareConcurrency - 1}` : String(core);
  if (pinned && taskset)
    Bun.spawnSync([taskset, "-a", "-p", "-c", cores, String(process.pid)], { stdout: "ignore" });
}

async function load(url: string): Promise<number> {
  if (wrk) {
    const proc = Bun.spawn(pin(1, [wrk, "-t1", "-c64", `-d${seconds}s`, url]), {
      stdout: "pipe",
      stderr: "ignore",
    });
    const out = await new Response(proc.stdout).text();
    await proc.exited;
    if (/Non-2xx|Socket errors/.test(out)) throw new Error(`${url}: errors under load\n${out}`);
    return Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN);
  }
  const proc = Bun.spawn(
    pin(1, [
      "node",
      join(root, "node_modules/autocannon/autocannon.js"),
      "-c",
      "64",
      "-d",
      String(seconds),
      "-j",
      url,
    ]),
    { stdout: "pipe", stderr: "ignore" },
  );
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const result = JSON.parse(out) as { requests: { average: number }; non2xx: number; errors: number };
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

interface Contender {
  cmd: string[];
  env?: Record<string, string>;
  path: string;
}

/** Loads every url once, one after another. */
async function oneAfterAnother(urls: string[]): Promise<number[]> {
  const results: number[] = [];
  for (const url of urls) results.push(await load(url));
  return results;
}

/**
 * Loads every url at the same moment. With the servers sharing core 0, each one's req/s is set by
 * its cost per request, and a slow moment of the machine hits all of them at once: ratios within
 * such a round vary by a few per cent, where rounds taken one after another vary by 10-20 % on a
 * shared machine.
 */
const atOnce = (urls: string[]): Promise<number[]> => Promise.all(urls.map(load));

/**
 * Starts the contenders (servers on core 0), runs a discarded warm-up round, then `rounds` rounds;
 * returns each contender's req/s per round. Rounds one after another are interleaved (A, B, C, A,
 * B, C, …) so that a slow moment hits all of them alike; each round's ratios are taken within it.
 */
async function throughput(
  contenders: Contender[],
  rounds: number,
  round: (urls: string[]) => Promise<number[]>,
): Promise<number[][]> {
  const servers: Started[] = [];
  try {
    for (const [i, contender] of contenders.entries()) {
      // svc writes its request log to a file: read from a pipe, the log would take core 1 from the
      // load generator while svc alone is loaded. svc's own cost of writing each line is the same.
      const log = join(logs, `${Date.now()}-${i}.log`);
      servers.push(await startServer(pin(0, contender.cmd), contender.env, log));
    }
    const urls = servers.map((server, i) => `${server.url}${contenders[i]?.path}`);
    await round(urls); // warm-up, discarded
    const results: number[][] = contenders.map(() => []);
    for (let r = 0; r < rounds; r++) {
      for (const [i, result] of (await round(urls)).entries()) results[i]?.push(result);
    }
    return results;
  } finally {
    for (const server of servers) {
      server.proc.kill();
      await server.proc.exited;
    }
    for (const log of readdirSync(logs)) rmSync(join(logs, log), { force: true });
  }
}

/** `throughput` over `trials` sets of fresh processes; each contender's rounds pooled. */
async function trialsOf(
  contenders: Contender[],
  trials: number,
  rounds: number,
  round: (urls: string[]) => Promise<number[]>,
): Promise<number[][]> {
  const pooled: number[][] = contenders.map(() => []);
  for (let trial = 0; trial < trials; trial++) {
    for (const [i, results] of (await throughput(contenders, rounds, round)).entries())
      pooled[i]?.push(...results);
  }
  return pooled;
}

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const ratios = (a: number[], b: number[]) => a.map((value, i) => value / (b[i] ?? Number.NaN));

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
  pinSelf(1);
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-"));
  const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
  // Two identical processes can differ by 10-20 % here (placement, JIT): each trial starts fresh
  // ones, and the rounds of every trial are pooled.
  const trials = Number(process.env.BENCH_TRIALS ?? 4);
  const svcEnv = { SVC_DB_PATH: join(dir, "svc.db") };
  const bareServer: Contender = {
    cmd: [process.execPath, join(root, "scripts/bench/peers/bare-bun.ts")],
    path: "/api/health",
  };
  const svcServer: Contender = { cmd: [binary], env: svcEnv, path: "/api/health" };
  const nodeServer: Contender = {
    cmd: ["node", join(root, "scripts/bench/peers/hono-node.mjs")],
    path: "/api/health",
  };
  // In the order of the results below: bare, svc, node, svc-hono.
  const contenders: Contender[] = [
    bareServer,
    svcServer,
    nodeServer,
    // A route that goes through Hono's router and a settings read, for comparison (no target).
    // Its own database: svc allows one server per database file.
    { cmd: [binary], env: { SVC_DB_PATH: join(dir, "svc-router.db") }, path: "/api/settings/language" },
  ];
  const [bare = [], svc = [], honoNode = [], svcHono = []] = await trialsOf(
    contenders,
    trials,
    rounds,
    oneAfterAnother,
  );
  pinSelf(undefined);
  console.log(
    `\n${generator}; ${trials} trials of fresh processes × ${rounds} interleaved rounds after a warm-up` +
      `${pinned ? "; servers on core 0, load on core 1, svc's request log to a file" : ""}. Median req/s and median of the per-round ratios.`,
  );
  table([
    ["server", "req/s", "ratio", "target"],
    ["svc GET /api/health (compiled binary, request log on)", fmt(median(svc), 0), "", ""],
    ["bare Bun.serve", fmt(median(bare), 0), `svc/bare ${fmt(median(ratios(svc, bare)), 2)}`, "≥ 0.80"],
    [
      "Hono on Node (@hono/node-server)",
      fmt(median(honoNode), 0),
      `svc/node ${fmt(median(ratios(svc, honoNode)), 2)}`,
      "≥ 2.00",
    ],
    [
      "svc GET /api/settings/language (Hono router)",
      fmt(median(svcHono), 0),
      `this/bare ${fmt(median(ratios(svcHono, bare)), 2)}`,
      "",
    ],
  ]);
  if (pinned) {
    // The same comparisons with both servers loaded at the same moment (see `atOnce`).
    // Fresh processes for each trial here too: one Node process can run 20 % faster or slower
    // than the next, and a ratio taken against only one of them says as much about it as of svc.
    const pairedTrials = Number(process.env.BENCH_PAIRED_TRIALS ?? 3);
    const pairedRounds = Number(process.env.BENCH_PAIRED_ROUNDS ?? 4);
    pinSelf(1);
    const [bareP = [], svcVsBare = []] = await trialsOf(
      [bareServer, svcServer],
      pairedTrials,
      pairedRounds,
      atOnce,
    );
    const [nodeP = [], svcVsNode = []] = await trialsOf(
      [nodeServer, svcServer],
      pairedTrials,
      pairedRounds,
      atOnce,
    );
    pinSelf(undefined);
    const spread = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return `${fmt(median(values), 2)} (${fmt(sorted[0] ?? Number.NaN, 2)}–${fmt(sorted.at(-1) ?? Number.NaN, 2)})`;
    };
    console.log(
      `\nSide by side at the same moment: both servers on core 0, each loaded by its own ${generator} on core 1; ${pairedTrials} trials of fresh processes × ${pairedRounds} rounds. Median ratio (range).`,
    );
    table([
      ["pair", "req/s each (median)", "ratio", "target"],
      [
        "svc | bare Bun.serve",
        `${fmt(median(svcVsBare), 0)} | ${fmt(median(bareP), 0)}`,
        `svc/bare ${spread(ratios(svcVsBare, bareP))}`,
        "≥ 0.80",
      ],
      [
        "svc | Hono on Node",
        `${fmt(median(svcVsNode), 0)} | ${fmt(median(nodeP), 0)}`,
        `svc/node ${spread(ratios(svcVsNode, nodeP))}`,
        "≥ 2.00",
      ],
    ]);
  }
  rmSync(dir, { recursive: true, force: true });
  const { readyMs, rss } = await startup(10);
  console.log("\nCompiled binary, 10 starts with a fresh database");
  table([
    ["measure", "p50", "max", "target"],
    ["start to healthy (ms)", fmt(percentile(readyMs, 50)), fmt(readyMs.at(-1) ?? Number.NaN), "≤ 150"],
    ["idle RSS after 1 s (MB)", fmt(percentile(rss, 50)), fmt(rss.at(-1) ?? Number.NaN), "≤ 60"],
  ]);
}

if (import.meta.main) await run();
