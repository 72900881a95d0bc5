// Memory benchmark: the compiled binary's RSS idle, after the speech engine's first dictation,
// after one upload of each compressed format (each loads its WASM decoder once, for the life of
// the process), then every few rounds of mixed requests over 127.0.0.1 (damaged audio among them),
// a burst of large bodies, and the whisper engine (synthetic tiny.en model). What the warm-up holds
// is paid once; growth between later rounds is what a leak would look like. First, keep_alive with
// each engine: RSS once it has passed against idle.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { goForward, TESTDATA } from "../../test/helpers/sphinx-testdata.ts";
import { syntheticModel } from "../../test/helpers/synthetic-model.ts";
import { fmt, memoryMb, startServer, table } from "./util.ts";

const root = resolve(import.meta.dir, "../..");
const binary = join(root, "dist", "svc");
const fixtures = join(root, "test", "fixtures", "audio");
const rounds = Number(process.env.BENCH_ROUNDS ?? 30);
/** Requests in flight at once during the mixed rounds. */
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);

/** One file per decoder, in the order a first upload loads them. */
const codecs = [
  ["webm (opus)", "speech-opus.webm", "audio/webm"],
  ["ogg (opus)", "sine.opus", "audio/ogg"],
  ["ogg (vorbis)", "sine-vorbis.ogg", "audio/ogg"],
  ["mp3", "sine.mp3", "audio/mpeg"],
  ["flac", "sine.flac", "audio/flac"],
  ["m4a (aac)", "sine.m4a", "audio/mp4"],
  ["aac (adts)", "sine.aac", "audio/aac"],
] as const;

const bytesOf = (file: string) => new Uint8Array(readFileSync(join(fixtures, file)));

/** Real speech for the engine (goforward.raw when installed, else a WAV fixture). */
function speechWav(): Uint8Array<ArrayBuffer> {
  return existsSync(`${TESTDATA}/goforward.raw`) ? encodeWav(goForward()) : bytesOf("s16.wav");
}

/** A damaged copy: random bytes flipped after the header, or the file cut short. */
function mutate(bytes: Uint8Array, seed: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(seed % 3 === 0 ? bytes.subarray(0, 64 + (seed % bytes.length)) : bytes);
  for (let i = 0; i < 16; i++) {
    const at = 32 + ((seed * 7919 + i * 104729) % Math.max(1, out.length - 32));
    out[at] = (out[at] ?? 0) ^ (1 + ((seed + i) % 255));
  }
  return out;
}

/** Builds dist/svc from the working tree (a second or so): the figures are for this code. */
async function build(): Promise<void> {
  const proc = Bun.spawn([process.execPath, "scripts/build.ts"], { cwd: root, stdout: "ignore" });
  if ((await proc.exited) !== 0) throw new Error("build failed");
}

/** Requests to one running svc, and a table of its memory after each named step. */
function createProbe(url: string, pid: number) {
  const speech = speechWav();
  const rows: string[][] = [["after", "RSS (MiB)", "peak (MiB)", "step (MiB)"]];
  let last = 0;
  let seed = 1;
  let failures = 0;
  const send = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${url}${path}`, init);
    await res.arrayBuffer();
    if (res.status >= 500) failures++;
  };
  const json = (path: string, method: string, body: unknown) =>
    send(path, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const audio = (body: Uint8Array<ArrayBuffer>, type: string) =>
    send("/api/transcribe", { method: "POST", headers: { "content-type": type }, body });

  /** The i-th request of the mixed load: dictation in every format, damaged audio, reads and writes. */
  const mixed = (i: number): Promise<void> => {
    const [, file, type] = codecs[i % codecs.length] ?? codecs[0];
    switch (i % 8) {
      case 0:
        return audio(speech, "audio/wav");
      case 1:
        return audio(bytesOf(file), type);
      case 2:
        return audio(mutate(bytesOf(file), seed++), type);
      case 3:
        return json("/api/dictionary", "POST", { key: `k${seed++}`, value: "v".repeat(200) });
      case 4:
        return send(`/api/history?search=forward&limit=50&offset=${i % 100}`);
      case 5:
        return json("/api/post-process", "POST", { text: "hello world, new line ".repeat(200) });
      case 6:
        return send("/api/openapi.json");
      default:
        return send(`/api/dictionary?limit=100&search=k${i % 50}`);
    }
  };
  return {
    speech,
    json,
    audio,
    /** `count` mixed requests, `concurrency` at a time. */
    async load(count: number, from = 0): Promise<void> {
      for (let at = 0; at < count; at += concurrency) {
        await Promise.all(Array.from({ length: concurrency }, (_, k) => mixed(from + at + k)));
      }
    },
    record(label: string): number {
      const { rss, peak } = memoryMb(pid);
      rows.push([label, fmt(rss), fmt(peak), last === 0 ? "" : fmt(rss - last)]);
      last = rss;
      return rss;
    },
    rows,
    failures: () => failures,
  };
}

type Probe = ReturnType<typeof createProbe>;

/** The engine's first dictation, then one upload per decoder: what svc loads once. */
async function warmUp(probe: Probe): Promise<number> {
  await Bun.sleep(1000);
  probe.record("start (idle 1 s)");
  await probe.json("/api/settings/stt_engine", "PUT", { value: "sphinx" });
  await probe.audio(probe.speech, "audio/wav");
  probe.record("first dictation (sphinx, WAV)");
  let rss = 0;
  for (const [name, file, type] of codecs) {
    await probe.audio(bytesOf(file), type);
    rss = probe.record(`first ${name}`);
  }
  return rss;
}

const perRound = 64;

async function mixedRounds(probe: Probe): Promise<number> {
  const marks = new Set([1, 2, 5, 10, 20, 30, 40, 60, 80, 100, rounds]);
  let rss = 0;
  for (let round = 1; round <= rounds; round++) {
    await probe.load(perRound, round * perRound);
    if (marks.has(round)) rss = probe.record(`round ${round} (${round * perRound} requests)`);
  }
  return rss;
}

/** What a fuzzer's big uploads do: bodies held at once, then whether the memory comes back. */
async function burst(probe: Probe): Promise<void> {
  const junk = new Uint8Array(16 * 1024 * 1024).map((_, i) => (i * 2654435761) >>> 24);
  await Promise.all(Array.from({ length: concurrency }, () => probe.audio(junk, "audio/mpeg")));
  probe.record(`${concurrency} × 16 MiB damaged uploads at once`);
  await probe.load(4 * perRound);
  probe.record(`${4 * perRound} more mixed requests`);
}

async function whisper(probe: Probe, models: string): Promise<void> {
  copyFileSync(syntheticModel("tiny.en"), join(models, "ggml-base.en.bin"));
  await probe.json("/api/settings/stt_engine", "PUT", { value: "whisper" });
  await probe.audio(probe.speech, "audio/wav");
  probe.record("first dictation (whisper, 75 MB tiny.en)");
  await probe.json("/api/settings/stt_engine", "PUT", { value: "sphinx" });
  await probe.audio(probe.speech, "audio/wav");
  probe.record("back to sphinx");
}

const KEEP_ALIVE_S = 3;

/** A dictation's time from request to answer, in ms. */
async function timed(probe: Probe): Promise<number> {
  const started = performance.now();
  await probe.audio(probe.speech, "audio/wav");
  return performance.now() - started;
}

type KeepAliveEngine = "whisper" | "sphinx";

interface KeepAliveFigures {
  idle: number;
  after: number;
  withinMs: number;
  cold: number;
  warm: number;
  again: number;
}

/**
 * keep_alive with one engine: a fresh binary (a whisper model installed), idle; warm after two
 * dictations; then RSS as keep_alive passes, against the idle figure; and what the first dictation
 * pays cold.
 */
async function keepAlive(
  engine: KeepAliveEngine,
  extraEnv: Record<string, string> = {},
  label: string = engine,
): Promise<KeepAliveFigures> {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-keep-alive-"));
  mkdirSync(join(dir, "models"));
  copyFileSync(syntheticModel("tiny.en"), join(dir, "models", "ggml-base.en.bin"));
  const env = { SVC_DB_PATH: join(dir, "svc.db"), SVC_MODELS_DIR: join(dir, "models"), ...extraEnv };
  const server = await startServer([binary], env);
  try {
    const probe = createProbe(server.url, server.proc.pid);
    await Bun.sleep(1000);
    const idle = probe.record("start (idle 1 s; a whisper model installed, not loaded)");
    await probe.json("/api/settings/keep_alive", "PUT", { value: `${KEEP_ALIVE_S}s` });
    await probe.json("/api/settings/stt_engine", "PUT", { value: engine });
    const cold = await timed(probe);
    const warm = await timed(probe);
    probe.record(`two ${label} dictations (engine and detector loaded)`);
    // Sampled until keep_alive + 10 s: when RSS first came within 1.3× idle, and where it stands then.
    const released = performance.now();
    let withinMs = Number.NaN;
    for (let waited = 0; waited < (KEEP_ALIVE_S + 10) * 1000; waited += 500) {
      await Bun.sleep(500);
      if (Number.isNaN(withinMs) && memoryMb(server.proc.pid).rss <= idle * 1.3) {
        withinMs = performance.now() - released;
      }
    }
    const after = probe.record(`keep_alive (${KEEP_ALIVE_S} s) + 10 s`);
    const again = await timed(probe);
    probe.record("the next dictation (loaded again)");
    console.log(`\nkeep_alive ${KEEP_ALIVE_S} s with ${label}: the compiled binary`);
    table(probe.rows);
    return { idle, after, withinMs, cold, warm, again };
  } finally {
    server.proc.kill();
    await server.proc.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Mesa's lavapipe: a Vulkan device in host memory, so RSS shows what the device's buffers hold. */
const lavapipe = `/usr/share/vulkan/icd.d/lvp_icd.${process.arch === "arm64" ? "aarch64" : "x86_64"}.json`;
const vulkanBuild = join(root, `build/whisper/linux-${process.arch}/vulkan.node`);

/**
 * keep_alive with whisper (synthetic tiny.en, 75 MB), with sphinx and, where the Vulkan build and
 * lavapipe are here, with whisper on that Vulkan device: the model's device buffers must go too.
 * Each on a fresh binary, side by side.
 */
async function keepAliveEngines(): Promise<void> {
  const runs: [string, KeepAliveFigures][] = [
    ["whisper", await keepAlive("whisper")],
    ["sphinx", await keepAlive("sphinx")],
  ];
  if (existsSync(vulkanBuild) && existsSync(lavapipe)) {
    const env = { SVC_WHISPER_DEVICE: "vulkan", VK_ICD_FILENAMES: lavapipe };
    runs.push([
      "whisper, Vulkan (lavapipe)",
      await keepAlive("whisper", env, "whisper on Vulkan (lavapipe)"),
    ]);
  } else {
    console.log("\n(no Vulkan build or no lavapipe here: keep_alive on a Vulkan device not measured)");
  }
  const row = (label: string, of: (f: KeepAliveFigures) => string, target = "") => [
    label,
    ...runs.map(([, figures]) => of(figures)),
    target,
  ];
  console.log("");
  table([
    ["measure", ...runs.map(([name]) => name), "target"],
    row("idle RSS (MiB)", (f) => fmt(f.idle)),
    row("RSS at keep_alive + 10 s (MiB)", (f) => fmt(f.after)),
    row("RSS at keep_alive + 10 s ÷ idle", (f) => fmt(f.after / f.idle, 2), "≤ 1.3"),
    row(
      "first within 1.3× idle after",
      (f) => (Number.isNaN(f.withinMs) ? "never" : `${fmt(f.withinMs / 1000, 1)} s`),
      `≤ ${KEEP_ALIVE_S + 10} s`,
    ),
    row("first dictation, cold (loads engine and detector)", (f) => `${fmt(f.cold, 0)} ms`),
    row("the same dictation, warm", (f) => `${fmt(f.warm, 0)} ms`),
    row("after keep_alive, cold again", (f) => `${fmt(f.again, 0)} ms`),
    row("what cold costs (cold − warm)", (f) => `${fmt(f.cold - f.warm, 0)} ms`),
  ]);
}

export async function run(): Promise<void> {
  await build();
  await keepAliveEngines();
  // BENCH_ONLY=keep_alive: only that part (a minute, against the mixed rounds' four).
  if (process.env.BENCH_ONLY === "keep_alive") return;
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-memory-"));
  const models = join(dir, "models");
  mkdirSync(models);
  const server = await startServer([binary], { SVC_DB_PATH: join(dir, "svc.db"), SVC_MODELS_DIR: models });
  try {
    const probe = createProbe(server.url, server.proc.pid);
    const warm = await warmUp(probe);
    const started = performance.now();
    const loaded = await mixedRounds(probe);
    const seconds = (performance.now() - started) / 1000;
    await burst(probe);
    await whisper(probe, models);
    console.log(
      `Compiled binary over 127.0.0.1; ${rounds} rounds of ${perRound} mixed requests, ${concurrency} at a time (${fmt(seconds)} s, ${probe.failures()} answered 5xx)`,
    );
    table(probe.rows);
    console.log(
      `\nWarm-up (sphinx and every codec) held ${fmt(warm)} MiB; ${rounds * perRound} mixed requests then moved RSS by ${fmt(loaded - warm)} MiB.`,
    );
  } finally {
    server.proc.kill();
    await server.proc.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await run();
