// Foundation benchmark: GET /api/health throughput and latency of svc beside a bare Bun.serve
// handler and the same minimal Hono app on Node, loaded by wrk from the other core; then the
// compiled binary's start-to-healthy time and idle RSS.
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  cpuSeconds,
  fmt,
  median,
  onCore,
  percentile,
  pinnable,
  pinSelf,
  rssMb,
  type Started,
  spread,
  startServer,
  table,
} from "./util.ts";
import { describeWrk, findWrk, type LoadResult, loadWith } from "./wrk.ts";

const root = resolve(import.meta.dir, "../..");
const binary = join(root, "dist", "svc");
const seconds = Number(process.env.BENCH_SECONDS ?? 2);
// Servers run on core 0, the load generator (and this process, which waits on it) on core 1, so
// neither steals the other's core; this removes most of the run-to-run spread.
const SERVER_CORE = 0;
const LOAD_CORE = 1;

async function ensureBinary(): Promise<void> {
  if (existsSync(binary)) return;
  const proc = Bun.spawn([process.execPath, "scripts/build.ts"], { cwd: root, stdout: "ignore" });
  if ((await proc.exited) !== 0) throw new Error("build failed");
}

interface Contender {
  cmd: string[];
  env?: Record<string, string>;
  path: string;
  /** Sent with every request (a Bearer key). */
  headers?: Record<string, string>;
}

/** A started server: where to load it, and its process, whose CPU time is read around each load. */
interface Target {
  url: string;
  pid: number;
  headers?: Record<string, string>;
}

interface Measured extends LoadResult {
  /**
   * The server's CPU time per request (every thread). Unlike req/s it hardly moves when other
   * processes take turns on the core, so it compares servers on a busy machine.
   */
  cpuUs: number;
}

type Load = (target: Target) => Promise<Measured>;

/** Loads the targets and returns one result per target, in their order. */
type Round = (targets: Target[]) => Promise<Measured[]>;

const measuring =
  (load: (url: string, headers?: Record<string, string>) => Promise<LoadResult>): Load =>
  async ({ url, pid, headers }) => {
    const before = cpuSeconds(pid);
    const result = await load(url, headers);
    return { ...result, cpuUs: ((cpuSeconds(pid) - before) * 1e6) / result.requests };
  };

/** Loads every target once, one after another. */
const oneAfterAnother =
  (load: Load): Round =>
  async (targets) => {
    const results: Measured[] = [];
    for (const target of targets) results.push(await load(target));
    return results;
  };

/**
 * Loads every url at the same moment, each from its own wrk. With the servers sharing core 0, each
 * one's req/s is set by its cost per request, and a slow moment of the machine hits all of them at
 * once: ratios within such a round vary by a few per cent, where rounds taken one after another
 * vary by 10-20 % on a shared machine.
 */
const atOnce =
  (load: Load): Round =>
  (targets) =>
    Promise.all(targets.map(load));

/**
 * Starts the contenders (servers on core 0), runs a discarded warm-up round, then `rounds` rounds;
 * returns each contender's results per round. Rounds one after another are interleaved (A, B, C,
 * A, B, C, …) so that a slow moment hits all of them alike; each round's ratios are taken within it.
 */
async function throughput(
  contenders: Contender[],
  rounds: number,
  round: Round,
  logs: string,
): Promise<Measured[][]> {
  const servers: Started[] = [];
  try {
    for (const [i, contender] of contenders.entries()) {
      // svc writes its request log to a file: read from a pipe, the log would take core 1 from the
      // load generator while svc alone is loaded. svc's own cost of writing each line is the same.
      const log = join(logs, `${Date.now()}-${i}.log`);
      servers.push(await startServer(onCore(SERVER_CORE, contender.cmd), contender.env, log));
    }
    const targets = servers.map((server, i) => ({
      url: `${server.url}${contenders[i]?.path}`,
      pid: server.proc.pid,
      headers: contenders[i]?.headers,
    }));
    await round(targets); // warm-up, discarded
    const results: Measured[][] = contenders.map(() => []);
    for (let r = 0; r < rounds; r++) {
      for (const [i, result] of (await round(targets)).entries()) results[i]?.push(result);
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
  round: Round,
  logs: string,
): Promise<Measured[][]> {
  const pooled: Measured[][] = contenders.map(() => []);
  for (let trial = 0; trial < trials; trial++) {
    for (const [i, results] of (await throughput(contenders, rounds, round, logs)).entries())
      pooled[i]?.push(...results);
  }
  return pooled;
}

const rps = (results: Measured[]) => results.map((result) => result.rps);
const cpu = (results: Measured[]) => results.map((result) => result.cpuUs);
/** Per-round ratios of a's req/s to b's, each taken within its round. */
const rpsRatios = (a: Measured[], b: Measured[]) =>
  a.map((result, i) => result.rps / (b[i]?.rps ?? Number.NaN));
/** The same ratio from CPU cost per request: b's cost over a's, what a's req/s would be over b's on a core of its own. */
const cpuRatios = (a: Measured[], b: Measured[]) =>
  a.map((result, i) => (b[i]?.cpuUs ?? Number.NaN) / result.cpuUs);
const latency = (results: Measured[]) =>
  `${fmt(median(results.map((r) => r.latencyMs.p50)), 2)} / ${fmt(median(results.map((r) => r.latencyMs.p99)), 2)}`;

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

function contendersIn(dir: string): {
  bare: Contender;
  svc: Contender;
  node: Contender;
  svcRouted: Contender;
} {
  return {
    bare: { cmd: [process.execPath, join(root, "scripts/bench/peers/bare-bun.ts")], path: "/api/health" },
    svc: { cmd: [binary], env: { SVC_DB_PATH: join(dir, "svc.db") }, path: "/api/health" },
    node: { cmd: ["node", join(root, "scripts/bench/peers/hono-node.mjs")], path: "/api/health" },
    // A route that goes through Hono's router and a settings read, for comparison (no target).
    // Its own database: svc allows one server per database file.
    svcRouted: {
      cmd: [binary],
      env: { SVC_DB_PATH: join(dir, "svc-router.db") },
      path: "/api/settings/language",
    },
  };
}

const CPU_LEGEND =
  "CPU µs/req: the server's CPU time (all threads) per request. Ratio: CPU is a/b of req/s as those costs\n" +
  "alone would set it; other load on the machine moves it far less than it moves req/s.";

/** Each contender loaded alone, one after another in interleaved rounds. */
async function alone(round: Round, dir: string, logs: string): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  // Two identical processes can differ by 10-20 % here (placement, JIT): each trial starts fresh
  // ones, and the rounds of every trial are pooled.
  const trials = Number(process.env.BENCH_TRIALS ?? 4);
  const c = contendersIn(dir);
  const [bare = [], svc = [], node = [], svcRouted = []] = await trialsOf(
    [c.bare, c.svc, c.node, c.svcRouted],
    trials,
    rounds,
    round,
    logs,
  );
  console.log(
    `\n${describeWrk(seconds)}; ${trials} trials of fresh processes × ${rounds} interleaved rounds after a warm-up` +
      `${pinnable ? "; servers on core 0, load on core 1, svc's request log to a file" : ""}.` +
      " Median (p10–p90) of the rounds' req/s and of the per-round ratios; median latency.\n" +
      "svc is the compiled binary, request log on; Hono on Node is @hono/node-server; the router row" +
      " reads a setting through Hono's router.",
  );
  console.log(CPU_LEGEND);
  table([
    ["server", "req/s", "latency p50 / p99 ms", "CPU µs/req", "ratio: req/s", "ratio: CPU", "target"],
    row("svc /api/health (binary, log on)", svc),
    row("bare Bun.serve", bare, ["svc/bare", svc, bare], "≥ 0.80"),
    row("Hono on Node", node, ["svc/node", svc, node], "≥ 2.00"),
    row("svc /api/settings/language (router)", svcRouted, ["this/bare", svcRouted, bare]),
  ]);
}

/**
 * What requiring keys costs a request: GET /api/settings/language with a dictate key in
 * `Authorization: Bearer` beside the same route with auth off. The keyed server runs
 * SVC_AUTH=keys-everywhere, so that wrk on this machine has its key checked as a LAN client's is
 * under `keys` (loopback would otherwise be trusted without one).
 */
async function accessCost(round: Round, dir: string, logs: string): Promise<void> {
  const trials = Number(process.env.BENCH_PAIRED_TRIALS ?? 3);
  const rounds = Number(process.env.BENCH_PAIRED_ROUNDS ?? 4);
  const keyedDb = join(dir, "svc-keyed.db");
  const made = Bun.spawnSync([binary, "keys", "create", "--name", "bench", "--role", "dictate"], {
    env: { PATH: process.env.PATH ?? "", SVC_DB_PATH: keyedDb },
  });
  const key = made.stdout.toString().trim();
  if (made.exitCode !== 0 || !key.startsWith("svck_"))
    throw new Error(`svc keys create failed: ${made.stderr}`);
  const off: Contender = {
    cmd: [binary],
    env: { SVC_DB_PATH: join(dir, "svc-off.db") },
    path: "/api/settings/language",
  };
  const keyed: Contender = {
    cmd: [binary],
    env: { SVC_DB_PATH: keyedDb, SVC_AUTH: "keys-everywhere" },
    path: "/api/settings/language",
    headers: { Authorization: `Bearer ${key}` },
  };
  const [keyedResults = [], offResults = []] = await trialsOf([keyed, off], trials, rounds, round, logs);
  // The same header sent to svc with keys off (OpenAI's clients always send one): what is left is
  // the key's check alone, apart from the bytes of the header.
  const offSent: Contender = { ...off, headers: keyed.headers };
  const [keyedAgain = [], offWithHeader = []] = await trialsOf([keyed, offSent], trials, rounds, round, logs);
  console.log(
    `
What a key costs: /api/settings/language with a dictate key (Bearer; SVC_AUTH=keys-everywhere, so the key is checked as a LAN client's under keys) beside the same route with auth off; ${pinnable ? "side by side at the same moment" : "one after another"}, ${describeWrk(seconds)}; ${trials} trials × ${rounds} rounds. Median (p10–p90).`,
  );
  table([
    ["pair", "req/s each", "CPU µs/req each", "ratio: req/s", "ratio: CPU", "target"],
    pairRow("keyed | off", "keyed/off", keyedResults, offResults, "≥ 0.95"),
    pairRow("keyed | off, same header sent", "keyed/off", keyedAgain, offWithHeader, ""),
  ]);
}

/** A contender's figures, and a ratio `a/b` between two contenders' measured within each round. */
function row(
  label: string,
  own: Measured[],
  ratio?: [string, Measured[], Measured[]],
  target = "",
): string[] {
  const [name, a, b] = ratio ?? ["", [], []];
  const of = (ratios: (a: Measured[], b: Measured[]) => number[]) =>
    name ? `${name} ${spread(ratios(a, b), 2)}` : "";
  return [
    label,
    spread(rps(own), 0),
    latency(own),
    spread(cpu(own), 1),
    of(rpsRatios),
    of(cpuRatios),
    target,
  ];
}

/**
 * The same comparisons with both servers loaded at the same moment (see `atOnce`). Fresh processes
 * for each trial here too: one Node process can run 20 % faster or slower than the next, and a
 * ratio taken against only one of them says as much about it as of svc.
 */
async function sideBySide(round: Round, dir: string, logs: string): Promise<void> {
  const trials = Number(process.env.BENCH_PAIRED_TRIALS ?? 3);
  const rounds = Number(process.env.BENCH_PAIRED_ROUNDS ?? 4);
  const c = contendersIn(dir);
  const [bare = [], svcVsBare = []] = await trialsOf([c.bare, c.svc], trials, rounds, round, logs);
  const [node = [], svcVsNode = []] = await trialsOf([c.node, c.svc], trials, rounds, round, logs);
  console.log(
    `\nSide by side at the same moment: both servers on core 0, each loaded by its own ${describeWrk(seconds)} on core 1; ${trials} trials of fresh processes × ${rounds} rounds. Median (p10–p90).`,
  );
  console.log(CPU_LEGEND);
  table([
    ["pair", "req/s each", "CPU µs/req each", "ratio: req/s", "ratio: CPU", "target"],
    pairRow("svc | bare Bun.serve", "svc/bare", svcVsBare, bare, "≥ 0.80"),
    pairRow("svc | Hono on Node", "svc/node", svcVsNode, node, "≥ 2.00"),
  ]);
}

function pairRow(label: string, name: string, a: Measured[], b: Measured[], target: string): string[] {
  return [
    label,
    `${spread(rps(a), 0)} | ${spread(rps(b), 0)}`,
    `${spread(cpu(a), 1)} | ${spread(cpu(b), 1)}`,
    `${name} ${spread(rpsRatios(a, b), 2)}`,
    `${name} ${spread(cpuRatios(a, b), 2)}`,
    target,
  ];
}

export async function run(): Promise<void> {
  const wrk = findWrk();
  await ensureBinary();
  const load = measuring((url, headers) => loadWith(wrk, url, seconds, LOAD_CORE, headers));
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-"));
  // In memory where the system has it, so that no disk writeback joins the measurement.
  const logs = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "svc-bench-logs-"));
  try {
    pinSelf(LOAD_CORE);
    // BENCH_ONLY=access: only what a key costs; =startup: only the binary's start and idle memory.
    const only = process.env.BENCH_ONLY;
    if (only !== "access" && only !== "startup") {
      await alone(oneAfterAnother(load), dir, logs);
      if (pinnable) await sideBySide(atOnce(load), dir, logs);
    }
    if (only !== "startup") await accessCost(pinnable ? atOnce(load) : oneAfterAnother(load), dir, logs);
    if (only === "access") return;
  } finally {
    pinSelf(undefined);
    rmSync(dir, { recursive: true, force: true });
    rmSync(logs, { recursive: true, force: true });
  }
  const { readyMs, rss } = await startup(10);
  console.log("\nCompiled binary, 10 starts with a fresh database");
  table([
    ["measure", "p50", "max", "target"],
    ["start to healthy (ms)", fmt(percentile(readyMs, 50)), fmt(readyMs.at(-1) ?? Number.NaN), "≤ 150"],
    ["idle RSS after 1 s (MB)", fmt(percentile(rss, 50)), fmt(rss.at(-1) ?? Number.NaN), "≤ 60"],
  ]);
}

if (import.meta.main) await run();
