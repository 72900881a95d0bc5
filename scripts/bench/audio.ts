// Audio decoding benchmark: WAV → 16 kHz mono per audio second (passthrough and resampled) beside
// every compressed format, warm and cold (first decode in a fresh process: module load + WASM
// compile). Target: WAV decode ≤ 0.05 ms per audio second. Printed, never enforced.
// One decode of 30 s passthrough WAV takes a fraction of a millisecond, so single timings swing with
// whatever else the machine runs: this process is pinned to one core, each figure is the median of
// interleaved rounds after a warm-up, and each round times a batch of decodes.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { decodeAudio } from "../../src/dictation/audio/decode.ts";
import { data, fmt as fmtChunk, riff, s16 } from "../../test/helpers/wav-builder.ts";
import { fmt, median, pinSelf, spread, table } from "./util.ts";

const SECONDS = 30;
/** Rounds per figure: p10–p90 are two rounds in from either end. */
const ROUNDS = Number(process.env.BENCH_AUDIO_ROUNDS ?? 21);
/** Each round decodes one input over and over for at least this long (at least once). */
const BATCH_MS = 25;
/** Before the rounds, each input decodes this long, so the JIT has settled on its final code. */
const WARM_UP_MS = 300;
const COLD_RUNS = Number(process.env.BENCH_AUDIO_COLD_RUNS ?? 5);
const TARGET_MS_PER_S = 0.05;
const FIXTURES = new URL("../../test/fixtures/audio/", import.meta.url).pathname;
const limits = { maxDurationMs: 3_600_000 };

/** Speech-like test signal: a few harmonics of a gliding pitch, so codecs have real work to do. */
function voice(rate: number, seconds: number): Float32Array {
  const out = new Float32Array(rate * seconds);
  let phase = 0;
  for (let i = 0; i < out.length; i++) {
    phase += (2 * Math.PI * (140 + 40 * Math.sin((2 * Math.PI * i) / rate / 1.7))) / rate;
    out[i] = 0.3 * Math.sin(phase) + 0.15 * Math.sin(3 * phase) + 0.08 * Math.sin(7 * phase);
  }
  return out;
}

function wav(rate: number, channels: number): Uint8Array {
  const mono = voice(rate, SECONDS);
  const interleaved = new Float32Array(mono.length * channels).map(
    (_, i) => mono[Math.floor(i / channels)] ?? 0,
  );
  return riff([fmtChunk({ tag: 1, channels, rate, bits: 16 }), data(s16(interleaved))]);
}

interface Input {
  bytes: Uint8Array;
  type?: string;
}

/**
 * Milliseconds of one decode. `cpu` is this process's CPU time, every thread (GC helpers too): with
 * the process on one core it is the wall time the decode would take if nothing else ran there, and
 * unlike `wall` it does not grow while other processes have the core.
 */
interface Timing {
  wall: number;
  cpu: number;
}

const cpuMsSince = (start: NodeJS.CpuUsage): number => {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
};

/**
 * Mean time per decode over a batch of at least `minMs`. A full collection first, so that one
 * input's garbage is not collected in the next one's batch.
 */
async function batch({ bytes, type }: Input, minMs: number): Promise<Timing> {
  Bun.gc(true);
  let calls = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  let elapsed = 0;
  do {
    await decodeAudio(bytes, type, limits);
    calls++;
    elapsed = performance.now() - started;
  } while (elapsed < minMs);
  return { wall: elapsed / calls, cpu: cpuMsSince(cpu) / calls };
}

interface PerSecond {
  /** Audio seconds in the input. */
  seconds: number;
  /** Per round, ms per audio second. */
  wall: number[];
  cpu: number[];
}

/**
 * Warm ms per audio second of each input over `ROUNDS` interleaved rounds (A, B, C, A, B, C, …),
 * so that a slow moment of the machine hits every input alike.
 */
async function warmPerSecond(inputs: Input[]): Promise<PerSecond[]> {
  const results: PerSecond[] = [];
  for (const input of inputs) {
    const seconds = (await decodeAudio(input.bytes, input.type, limits)).durationMs / 1000;
    await batch(input, WARM_UP_MS);
    results.push({ seconds, wall: [], cpu: [] });
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, input] of inputs.entries()) {
      const result = results[i];
      if (!result) continue;
      const { wall, cpu } = await batch(input, BATCH_MS);
      result.wall.push(wall / result.seconds);
      result.cpu.push(cpu / result.seconds);
    }
  }
  return results;
}

/** First decode in a fresh Bun process: what the first request of a format pays after a restart. */
async function cold(path: string): Promise<Timing> {
  const proc = Bun.spawn([process.execPath, import.meta.path, "--cold", path], {
    stdout: "pipe",
    stderr: "ignore",
  });
  const text = await new Response(proc.stdout).text();
  await proc.exited;
  const [, wall, cpu] = /cold ([\d.]+) ([\d.]+)/.exec(text) ?? [];
  return { wall: Number(wall ?? Number.NaN), cpu: Number(cpu ?? Number.NaN) };
}

/** 30 s files made with ffmpeg when it is installed; otherwise the 1 s test fixtures. */
async function compressedFiles(dir: string): Promise<[string, string][]> {
  const fixtures: [string, string][] = [
    ["WebM/Opus", "sine-opus.webm"],
    ["Ogg Opus", "sine.opus"],
    ["Ogg Vorbis", "sine-vorbis.ogg"],
    ["MP3", "sine.mp3"],
    ["FLAC", "sine.flac"],
    ["M4A/AAC", "sine.m4a"],
  ];
  if (!Bun.which("ffmpeg")) return fixtures.map(([name, file]) => [name, join(FIXTURES, file)]);
  const source = join(dir, "voice.wav");
  await Bun.write(source, wav(48000, 1));
  const codecs = [
    "libopus -b:a 24k",
    "libopus -b:a 24k",
    "libvorbis -q:a 2",
    "libmp3lame -b:a 64k",
    "flac",
    "aac -b:a 64k",
  ];
  const extensions = ["webm", "opus", "ogg", "mp3", "flac", "m4a"];
  return Promise.all(
    fixtures.map(async ([name], i) => {
      const out = join(dir, `voice.${extensions[i]}`);
      const args = ["-loglevel", "error", "-y", "-i", source, "-c:a", ...(codecs[i] ?? "").split(" "), out];
      await Bun.spawn(["ffmpeg", ...args]).exited;
      return [name, out] as [string, string];
    }),
  );
}

const WAV_INPUTS = [
  ["16 kHz mono s16 (passthrough)", 16000, 1],
  ["48 kHz stereo s16 (resampled)", 48000, 2],
  ["44.1 kHz stereo s16 (resampled)", 44100, 2],
  ["8 kHz mono s16 (upsampled)", 8000, 1],
] as const;

async function wavTable(): Promise<void> {
  const results = await warmPerSecond(
    WAV_INPUTS.map(([, rate, channels]) => ({ bytes: wav(rate, channels), type: "audio/wav" })),
  );
  const rows: (string | number)[][] = [
    ["WAV input", "CPU ms per audio s", "wall ms per audio s", "vs target"],
  ];
  for (const [i, [label]] of WAV_INPUTS.entries()) {
    const { cpu = [], wall = [] } = results[i] ?? {};
    rows.push([label, spread(cpu, 4), spread(wall, 4), `${fmt(median(cpu) / TARGET_MS_PER_S, 2)}×`]);
  }
  table(rows);
}

async function compressedTable(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-audio-"));
  try {
    const files = await compressedFiles(dir);
    const inputs = await Promise.all(
      files.map(async ([, path]) => ({ bytes: new Uint8Array(await Bun.file(path).arrayBuffer()) })),
    );
    const warm = await warmPerSecond(inputs);
    // Fresh processes interleaved too: each format's first decode once per pass.
    const first: Timing[][] = files.map(() => []);
    for (let run = 0; run < COLD_RUNS; run++) {
      for (const [i, [, path]] of files.entries()) first[i]?.push(await cold(path));
    }
    const rows: (string | number)[][] = [
      ["format", "audio s", "warm CPU ms per audio s", "warm wall", "cold first decode CPU ms", "cold wall"],
    ];
    for (const [i, [name]] of files.entries()) {
      const { seconds = Number.NaN, cpu = [], wall = [] } = warm[i] ?? {};
      const firsts = first[i] ?? [];
      rows.push([
        name,
        fmt(seconds, 1),
        spread(cpu, 3),
        spread(wall, 3),
        spread(
          firsts.map((t) => t.cpu),
          1,
        ),
        spread(
          firsts.map((t) => t.wall),
          1,
        ),
      ]);
    }
    console.log();
    table(rows);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  // The last core: on a two-core machine the HTTP bench keeps its servers on core 0.
  const core = navigator.hardwareConcurrency - 1;
  const pinned = pinSelf(core);
  try {
    console.log(
      `load average ${loadavg()
        .map((n) => n.toFixed(2))
        .join(" ")}; ${pinned ? `pinned to core ${core}; ` : ""}median (p10–p90) of ${ROUNDS} interleaved` +
        ` rounds of at least ${BATCH_MS} ms each, after ${WARM_UP_MS} ms of warm-up per input;` +
        ` cold: median (min–max) of ${COLD_RUNS} fresh processes.\nCPU: this process's CPU time,` +
        " which on one core is the wall time an otherwise idle machine would show; other load moves it far less.",
    );
    await wavTable();
    await compressedTable();
  } finally {
    pinSelf(undefined);
  }
}

if (import.meta.main) {
  const coldIndex = process.argv.indexOf("--cold");
  const coldPath = process.argv[coldIndex + 1];
  if (coldIndex > 0 && coldPath) {
    const bytes = new Uint8Array(await Bun.file(coldPath).arrayBuffer());
    const cpu = process.cpuUsage();
    const started = performance.now();
    await decodeAudio(bytes, undefined, limits);
    console.log(`cold ${performance.now() - started} ${cpuMsSince(cpu)}`);
  } else {
    await run();
  }
}
