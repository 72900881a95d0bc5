// Where whisper runs, side by side: svc's CPU build and every GPU device its GPU builds find (Vulkan:
// each device the loader lists, lavapipe included; CUDA where cuda.node is), each in a process of its
// own (ggml picks its device once per process), transcribing the same 5 s of speech with the same
// synthetic model. Beside each GPU row, whisper.cpp's own whisper-cli built from the same 1.9.1 source
// on the same device: svc's own cost is the ratio (target ≤ 1.05).
//
//   bun run bench devices                  synthetic base.en shape
//   BENCH_SHAPE=large-v3-turbo bun run bench devices
//                                          tiny.en, base.en, small or large-v3-turbo (1.6 GB, written once)
//   BENCH_DEVICES=cpu,cuda bun run bench devices
//                                          only these rows: cpu, vulkan (every device), vulkan:N, cuda
//   BENCH_RUNS=5 bun run bench devices     runs per row (median)
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { GPU_PROBE_COMMAND, parseDeviceChoice } from "../../src/dictation/engines/device-choice.ts";
import type { GpuDevice } from "../../src/dictation/engines/whisper/device.ts";
import { createWhisperEngine } from "../../src/dictation/engines/whisper/engine.ts";
import { selfCommand } from "../../src/self-command.ts";
import { type SyntheticPreset, syntheticModel } from "../../test/helpers/synthetic-model.ts";
import { hostPlatform } from "../whisper-addon.mjs";
import { speech, tokensFor } from "./transcribe.ts";
import { fmt, table, timedMedian } from "./util.ts";

const root = resolve(import.meta.dir, "../..");
const runs = Number(process.env.BENCH_RUNS ?? 3);
const shape = (process.env.BENCH_SHAPE ?? "base.en") as SyntheticPreset;
/** The rows asked for (BENCH_DEVICES), or every one; the CPU build's row is always measured (the × column). */
const asked = process.env.BENCH_DEVICES?.split(",").map((name) => name.trim());
const wanted = (row: string) => !asked || asked.includes(row) || asked.includes(row.replace(/:\d+$/, ""));
const SECONDS = 5;
// svc's audio_ctx for a 5 s clip (audioCtxFor), and whisper-cli's -ac with it.
const AUDIO_CTX = 288;

/** ggml's switches svc sets for a CPU-type Vulkan device (native/gpu-devices.cc), for whisper-cli too. */
const cpuTypeSwitches = {
  GGML_VK_DISABLE_FUSION: "1",
  GGML_VK_DISABLE_MULTI_ADD: "1",
  GGML_VK_DISABLE_GRAPH_OPTIMIZE: "1",
  GGML_VK_DISABLE_ASYNC: "1",
};

interface Measured {
  /** The clip decoded as whisper-cli decodes it: random weights run to the token limit (over 200). */
  ms: number;
  /**
   * The clip decoded as far as a real dictation of it goes (tokensFor: about 3.5 tokens a second, as
   * the transcribe bench): the time a person waits, and the GPU target's measure.
   */
  dictationMs: number;
  build: string;
  device: string;
  /** svc's own choice for the device (every core on the CPU, at most 4 beside a GPU): whisper-cli gets the same. */
  threads: number;
}

/** In the child: svc's engine on `choice`, its medians over the runs, as JSON. */
async function child(choice: string, model: string): Promise<void> {
  const pcm = speech(SECONDS);
  const timed = async (maxTokensPerSegment?: number) => {
    const engine = await createWhisperEngine({
      modelPath: model,
      temperatureIncrement: 0, // one decoding pass, as whisper-cli -nf
      device: parseDeviceChoice(choice),
      ...(maxTokensPerSegment ? { maxTokensPerSegment } : {}),
    });
    try {
      await engine.transcribe(pcm.subarray(0, 16_000)); // warm-up: the GPU's pipelines are made here
      const ms = await timedMedian(runs, () => engine.transcribe(pcm));
      return { ms, build: engine.build ?? "?", device: engine.device ?? "CPU", threads: engine.threads };
    } finally {
      await engine.close();
    }
  };
  const whole = await timed();
  const measured: Measured = { ...whole, dictationMs: (await timed(tokensFor(SECONDS))).ms };
  console.log(JSON.stringify(measured));
}

function inChild(choice: string, model: string, env: Record<string, string> = {}): Measured | string {
  const proc = spawnSync(process.execPath, [import.meta.path, "--child", choice, model], {
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  const last = proc.stdout.trim().split("\n").at(-1) ?? "";
  if (proc.status !== 0 || !last.startsWith("{")) {
    // Bun ends an uncaught error with its own version line: the error's line says why.
    const lines = proc.stderr.trim().split("\n");
    const said = lines.findLast((line) => line.startsWith("error: ")) ?? lines.at(-1);
    return (said ?? `exit ${proc.status}`).replace(/^error: /, "").slice(0, 160);
  }
  return JSON.parse(last) as Measured;
}

/** Every Vulkan device the GPU build's loader lists, as svc's own probe process answers. */
function vulkanDevices(): GpuDevice[] {
  const [command = "", ...args] = selfCommand(GPU_PROBE_COMMAND, "whisper", "vulkan");
  const proc = spawnSync(command, args, { encoding: "utf8" });
  try {
    const listed = JSON.parse(proc.stdout.trim().split("\n").at(-1) ?? "") as { devices?: GpuDevice[] };
    return listed.devices ?? [];
  } catch {
    return [];
  }
}

/**
 * whisper.cpp's own whisper-cli from the same 1.9.1 source and CMake folder as svc's build for `api`
 * (scripts/whisper-gpu.mjs): its examples are switched on and only the tool is compiled.
 */
function whisperCli(api: "vulkan" | "cuda"): string | undefined {
  const cmakeDir = join(root, "build/whisper", hostPlatform(), `${api}-cmake`);
  const cli = join(cmakeDir, "bin/whisper-cli");
  if (existsSync(cli)) return cli;
  if (!existsSync(join(cmakeDir, "CMakeCache.txt"))) return undefined;
  const steps = [
    // `cmake <build folder>` configures that folder again, with its own source.
    ["-DWHISPER_BUILD_EXAMPLES=ON", "-DWHISPER_SDL2=OFF", "-DWHISPER_CURL=OFF", cmakeDir],
    ["--build", cmakeDir, "--target", "whisper-cli", "-j", String(availableParallelism())],
  ];
  for (const args of steps) {
    if (spawnSync("cmake", args, { stdio: "ignore" }).status !== 0) return undefined;
  }
  return existsSync(cli) ? cli : undefined;
}

/** whisper-cli's own time for the clip, without its model load: its total less its load, median. */
function cliMs(
  cli: string,
  model: string,
  wav: string,
  threads: number,
  env: Record<string, string>,
  extra: string[] = [],
): number | string {
  const times: number[] = [];
  for (let run = 0; run < runs + 1; run++) {
    const args = ["-m", model, "-f", wav, "-t", String(threads), "-l", "en", "-bs", "1", "-bo", "1"];
    // svc's decoding: no fallback, timestamps on, non-speech tokens suppressed.
    const proc = spawnSync(cli, [...args, ...extra, "-nf", "-ac", String(AUDIO_CTX), "-sns"], {
      encoding: "utf8",
      env: { ...process.env, ...env },
    });
    const total = /total time =\s*([\d.]+) ms/.exec(proc.stderr)?.[1];
    const load = /load time =\s*([\d.]+) ms/.exec(proc.stderr)?.[1];
    if (total === undefined || load === undefined) return `whisper-cli failed (exit ${proc.status})`;
    if (run > 0) times.push(Number(total) - Number(load)); // the first run warms the driver's caches
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

/** A row that measured nothing: its label and why, the other cells empty. */
const failedRow = (label: string, why: string) => [label, why, "", "", "", ""];

/**
 * A GPU device's row: svc's time, whisper-cli's (or why there is none), their ratio, svc's time for
 * the dictation, and that against the CPU build's.
 */
function gpuRow(
  label: string,
  svc: Measured,
  own: number | string,
  cpuDictationMs: number,
): (string | number)[] {
  return [
    label,
    fmt(svc.ms, 0),
    typeof own === "number" ? fmt(own, 0) : own,
    typeof own === "number" ? fmt(svc.ms / own, 2) : "",
    fmt(svc.dictationMs, 0),
    fmt(cpuDictationMs / svc.dictationMs, 2),
  ];
}

function cudaRow(model: string, wav: string, cpuDictationMs: number): (string | number)[] {
  if (!existsSync(join(root, "build/whisper", hostPlatform(), "cuda.node"))) {
    return failedRow("CUDA", "no cuda.node here (needs a CUDA toolkit with cuBLAS at npm install)");
  }
  const svc = inChild("cuda", model);
  if (typeof svc === "string") return failedRow("CUDA", svc);
  // Built only where svc's CUDA build ran: its CMake folder is this machine's then.
  const cli = whisperCli("cuda");
  return gpuRow(
    `CUDA: ${svc.device}`,
    svc,
    cli ? cliMs(cli, model, wav, svc.threads, {}) : "whisper-cli not built",
    cpuDictationMs,
  );
}

export async function run(): Promise<void> {
  const model = syntheticModel(shape);
  const work = mkdtempSync(join(tmpdir(), "svc-bench-devices-"));
  const wav = join(work, "clip.wav");
  writeFileSync(wav, encodeWav(speech(SECONDS), 16_000));
  const cli = whisperCli("vulkan");
  const header = [
    "where",
    "svc ms",
    "whisper-cli ms",
    "svc ÷ whisper-cli",
    `dictation ms (${tokensFor(SECONDS)} tokens)`,
    "× CPU build",
  ];
  const rows: (string | number)[][] = [header];
  // Each row also goes to stderr as it is measured: a run cut short by a time limit (a lent GPU
  // machine's) keeps what it measured. CUDA comes before Vulkan for that reason: on an NVIDIA card it
  // is the build auto takes.
  const add = (row: (string | number)[]) => {
    rows.push(row);
    const [where, ...cells] = row;
    const said = cells.flatMap((cell, at) => (cell === "" ? [] : [`${header[at + 1]} ${cell}`]));
    console.error(`measured ${where}: ${said.join(", ")}`);
  };
  const cpu = inChild("cpu", model);
  const cpuMs = typeof cpu === "string" ? Number.NaN : cpu.ms;
  const cpuDictationMs = typeof cpu === "string" ? Number.NaN : cpu.dictationMs;
  // whisper-cli on the CPU is 1.9.1's CPU code compiled for x86-64-v2 (the GPU build's CPU part);
  // svc's CPU builds are smart-whisper's 1.6 for this CPU's best level: not the same code, so this
  // ratio is for reading, not a target.
  const cliCpu =
    cli && typeof cpu !== "string"
      ? cliMs(cli, model, wav, cpu.threads, {}, ["-ng"])
      : "whisper-cli not built";
  add([
    typeof cpu === "string"
      ? `CPU: ${cpu}`
      : `CPU build ${cpu.build}, ${cpu.threads} threads (whisper-cli: 1.9.1, x86-64-v2)`,
    fmt(cpuMs, 0),
    typeof cliCpu === "number" ? fmt(cliCpu, 0) : cliCpu,
    typeof cliCpu === "number" ? fmt(cpuMs / cliCpu, 2) : "",
    fmt(cpuDictationMs, 0),
    "1.00",
  ]);
  if (wanted("cuda")) add(cudaRow(model, wav, cpuDictationMs));
  for (const device of vulkanDevices().filter((listed) => wanted(`vulkan:${listed.index}`))) {
    const env: Record<string, string> = {
      GGML_VK_VISIBLE_DEVICES: String(device.index),
      ...(device.type === "cpu" ? cpuTypeSwitches : {}),
    };
    const svc = inChild(`vulkan:${device.index}`, model);
    const own =
      cli && typeof svc !== "string" ? cliMs(cli, model, wav, svc.threads, env) : "whisper-cli not built";
    const label = `Vulkan ${device.index}: ${device.name} (${device.type}${device.type === "cpu" ? ", never chosen by auto" : ""})`;
    add(typeof svc === "string" ? failedRow(label, svc) : gpuRow(label, svc, own, cpuDictationMs));
  }
  console.log(
    `\nwhisper by device (synthetic ${shape}, ${SECONDS} s of speech, audio_ctx ${AUDIO_CTX}, greedy without fallback, svc's threads for each device and whisper-cli's the same, median of ${runs})`,
  );
  table(rows);
  console.log(
    `targets: svc ÷ whisper-cli ≤ 1.05 on each device (same source, same device, the clip decoded to whisper-cli's limit, as random weights go); a GPU ≥ 10× the CPU build on a large model, for the dictation (decoded to the ${tokensFor(SECONDS)} tokens ${SECONDS} s of speech comes to). A CPU-type device (lavapipe) only checks svc's path: it is slower than the CPU build, which is why auto never takes it.`,
  );
}

if (import.meta.main && process.argv[2] === "--child") {
  await child(process.argv[3] ?? "cpu", process.argv[4] ?? "");
}
