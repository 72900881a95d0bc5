// Audio decoding benchmark: WAV → 16 kHz mono per audio second (passthrough and resampled) beside
// every compressed format, warm and cold (first decode in a fresh process: module load + WASM
// compile). Issue 5's target: WAV decode ≤ 0.05 ms per audio second. Printed, never enforced.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { decodeAudio } from "../../src/dictation/audio/decode.ts";
import { data, fmt as fmtChunk, riff, s16 } from "../../test/dictation/audio/wav-builder.ts";
import { fmt, percentile, table } from "./util.ts";

const SECONDS = 30;
const REPEATS = 15;
const WARM_UP = 3;
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

async function warmMsPerSecond(bytes: Uint8Array, type?: string): Promise<{ ms: number; seconds: number }> {
  const first = await decodeAudio(bytes, type, limits);
  for (let i = 1; i < WARM_UP; i++) await decodeAudio(bytes, type, limits);
  const times: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const started = performance.now();
    await decodeAudio(bytes, type, limits);
    times.push(performance.now() - started);
  }
  const seconds = first.durationMs / 1000;
  return {
    ms:
      (percentile(
        times.sort((a, b) => a - b),
        50,
      ) ?? 0) / seconds,
    seconds,
  };
}

/** First decode in a fresh Bun process: what the first request of a format pays after a restart. */
async function coldMs(path: string): Promise<number> {
  const proc = Bun.spawn([process.execPath, import.meta.path, "--cold", path], {
    stdout: "pipe",
    stderr: "ignore",
  });
  const text = await new Response(proc.stdout).text();
  await proc.exited;
  return Number(/cold ([\d.]+)/.exec(text)?.[1] ?? Number.NaN);
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

export async function run(): Promise<void> {
  console.log(
    `load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}; median of ${REPEATS} warm runs`,
  );
  const wavRows: (string | number)[][] = [["WAV input", "ms per audio s", "vs target"]];
  for (const [label, rate, channels] of [
    ["16 kHz mono s16 (passthrough)", 16000, 1],
    ["48 kHz stereo s16 (resampled)", 48000, 2],
    ["44.1 kHz stereo s16 (resampled)", 44100, 2],
    ["8 kHz mono s16 (upsampled)", 8000, 1],
  ] as const) {
    const { ms } = await warmMsPerSecond(wav(rate, channels), "audio/wav");
    wavRows.push([label, fmt(ms, 4), `${fmt(ms / TARGET_MS_PER_S, 2)}×`]);
  }
  table(wavRows);

  const dir = mkdtempSync(join(tmpdir(), "svc-bench-audio-"));
  try {
    const rows: (string | number)[][] = [
      ["format", "audio s", "warm ms per audio s", "cold first decode ms"],
    ];
    for (const [name, path] of await compressedFiles(dir)) {
      const { ms, seconds } = await warmMsPerSecond(new Uint8Array(await Bun.file(path).arrayBuffer()));
      rows.push([name, fmt(seconds, 1), fmt(ms, 3), fmt(await coldMs(path), 1)]);
    }
    console.log();
    table(rows);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const coldIndex = process.argv.indexOf("--cold");
  const coldPath = process.argv[coldIndex + 1];
  if (coldIndex > 0 && coldPath) {
    const bytes = new Uint8Array(await Bun.file(coldPath).arrayBuffer());
    const started = performance.now();
    await decodeAudio(bytes, undefined, limits);
    console.log(`cold ${performance.now() - started}`);
  } else {
    await run();
  }
}
