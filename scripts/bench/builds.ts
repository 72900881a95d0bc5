// The whisper.cpp builds side by side: every build of this platform that this CPU can run (the one
// svc chooses first), each in a process of its own (an addon loads once per process), transcribing
// the same speech with a synthetic base.en model on 2 threads. What choosing the build by CPU buys,
// and a check that the chosen one is the fastest.
import { join, resolve } from "node:path";
import { buildsFor, chooseBuild } from "../../src/dictation/engines/whisper/binding.ts";
import { audioCtxFor, whisperParams } from "../../src/dictation/engines/whisper/params.ts";
import { syntheticModel } from "../../test/helpers/synthetic-model.ts";
import { hostPlatform } from "../whisper-addon.mjs";
import { speech, tokensFor } from "./transcribe.ts";
import { fmt, table, timedMedian } from "./util.ts";

const root = resolve(import.meta.dir, "../..");
const runs = Number(process.env.BENCH_RUNS ?? 3);
const clips = [5, 30];

interface Addon {
  WhisperModel: { load(file: string, gpu: boolean): Promise<{ handle: unknown }> };
  transcribe(
    handle: unknown,
    pcm: Float32Array,
    params: unknown,
    done: (r: unknown) => void,
    p: () => void,
  ): void;
}

/** In the child: load one build, print the median ms per clip length as JSON. */
async function child(file: string, model: string): Promise<void> {
  process.env.NODE_ENV = "production"; // whisper.cpp stays quiet on stderr
  const addon = require(file) as Addon;
  const loaded = await addon.WhisperModel.load(model, false);
  const once = (pcm: Float32Array, seconds: number) =>
    new Promise((done, fail) => {
      const settings = {
        threads: 2,
        beamSize: 1,
        temperatureIncrement: 0.2,
        maxTokensPerSegment: tokensFor(seconds),
      };
      const audioCtx = seconds < 30 ? audioCtxFor(pcm.length) : 0;
      const params = whisperParams(settings, { language: "en", prompt: undefined, audioCtx });
      addon.transcribe(
        loaded.handle,
        pcm,
        params,
        (r) => (Array.isArray(r) ? done(r) : fail(r)),
        () => {},
      );
    });
  const result: Record<number, number> = {};
  for (const seconds of clips) {
    const pcm = speech(seconds);
    await once(pcm.subarray(0, 16_000), 1); // warm-up
    result[seconds] = await timedMedian(runs, () => once(pcm, seconds));
  }
  console.log(JSON.stringify(result));
}

export async function run(): Promise<void> {
  const platform = hostPlatform();
  const dir = join(root, "build/whisper", platform);
  const probe = require(join(dir, "cpu-features.node")) as { features(): string[] };
  const features = new Set(probe.features());
  const runnable = buildsFor(platform).filter((build) => build.needs.every((need) => features.has(need)));
  const chosen = chooseBuild(buildsFor(platform), features);
  if (!chosen) throw new Error(`no whisper.cpp build for ${platform} runs on this CPU`);
  const model = syntheticModel("base.en");
  const times = new Map<string, Record<number, number>>();
  for (const build of runnable) {
    const proc = Bun.spawn(
      [process.execPath, import.meta.path, "--child", join(dir, `${build.name}.node`), model],
      { stdout: "pipe", stderr: "inherit" },
    );
    const out = await new Response(proc.stdout).text();
    if ((await proc.exited) !== 0) throw new Error(`${build.name}: the child failed`);
    times.set(build.name, JSON.parse(out.trim().split("\n").at(-1) ?? "{}"));
  }
  const best = times.get(chosen.name) ?? {};
  const rows: (string | number)[][] = [["build", ...clips.flatMap((s) => [`${s} s clip ms`, "× chosen"])]];
  for (const build of runnable) {
    const row = times.get(build.name) ?? {};
    const cells = clips.flatMap((s) => [
      fmt(row[s] ?? Number.NaN, 0),
      fmt((row[s] ?? 0) / (best[s] ?? 1), 2),
    ]);
    rows.push([`${build.name} (${build.label})${build === chosen ? " ← chosen" : ""}`, ...cells]);
  }
  console.log(`\nwhisper.cpp builds this CPU can run (synthetic base.en, 2 threads, median of ${runs})`);
  table(rows);
  console.log(
    "target: the chosen build is the fastest (every other row's ratio ≥ 1, within run-to-run noise)",
  );
}

if (import.meta.main && process.argv[2] === "--child") {
  await child(process.argv[3] ?? "", process.argv[4] ?? "");
}
