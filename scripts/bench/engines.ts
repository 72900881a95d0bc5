// Speech-engine benchmark. Whisper: a synthetic base.en-shaped model (real layout and compute cost,
// random weights) on 2 threads, clips of 2/5/10/30 s, with and without audio_ctx scaling, measured
// alternately in one run. Sphinx: real-time factor on the pocketsphinx-testdata clips. The
// target: a 5 s clip in ≤ 0.8 s. Printed, never enforced.
import { availableParallelism, loadavg } from "node:os";
import { createSphinxEngine } from "../../src/dictation/engines/sphinx/engine.ts";
import type { SpeechEngine } from "../../src/dictation/engines/types.ts";
import { createWhisperEngine } from "../../src/dictation/engines/whisper/engine.ts";
import { audioCtxFor } from "../../src/dictation/engines/whisper/params.ts";
import { goForward, librivoxClips } from "../../test/helpers/sphinx-testdata.ts";
import { syntheticModel } from "../../test/helpers/synthetic-model.ts";
import { wer } from "../../test/helpers/wer.ts";
import { fmt, percentile, table } from "./util.ts";

const THREADS = 2;
const CLIPS_S = [2, 5, 10, 30];
const REPEATS = 5;

/** Quiet noise: random weights decode gibberish whatever the input, so content does not matter. */
function clip(seconds: number): Float32Array {
  let seed = 7;
  return new Float32Array(seconds * 16_000).map(() => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return (seed / 2 ** 32 - 0.5) * 0.01;
  });
}

/**
 * Random weights never emit end-of-text, so decoding is capped at what real dictation produces: about
 * 1.33 tokens per word at ~2.6 words/s, plus 4 (the speech notes' estimate).
 */
const tokensFor = (seconds: number) => Math.min(224, Math.ceil(seconds * 2.6 * 1.33) + 4);

async function timeIt(engine: SpeechEngine, pcm: Float32Array): Promise<number> {
  const started = performance.now();
  await engine.transcribe(pcm);
  return performance.now() - started;
}

async function whisperRows(model: string): Promise<(string | number)[][]> {
  const rows: (string | number)[][] = [
    ["clip", "audio_ctx", "scaled p50 (min) ms", "full p50 (min) ms", "speed-up", "RTF scaled"],
  ];
  for (const seconds of CLIPS_S) {
    const base = {
      modelPath: model,
      threads: THREADS,
      temperatureIncrement: 0,
      maxTokensPerSegment: tokensFor(seconds),
    };
    const pcm = clip(seconds);
    const ctx = audioCtxFor(pcm.length);
    // Clips of 30 s and more always run with the full window, so there is nothing to compare.
    const engines =
      ctx === 0
        ? [await createWhisperEngine(base)]
        : await Promise.all(
            [true, false].map((audioCtxScaling) => createWhisperEngine({ ...base, audioCtxScaling })),
          );
    const times = engines.map(() => [] as number[]);
    for (const engine of engines) await timeIt(engine, pcm);
    for (let i = 0; i < (ctx === 0 ? 3 : REPEATS); i++) {
      for (const [e, engine] of engines.entries()) times[e]?.push(await timeIt(engine, pcm));
    }
    await Promise.all(engines.map((engine) => engine.close()));
    const [scaled = [], full = scaled] = times.map((t) => t.sort((a, b) => a - b));
    const cell = (t: number[]) => `${fmt(percentile(t, 50), 0)} (${fmt(t[0] ?? Number.NaN, 0)})`;
    const p50 = (t: number[]) => percentile(t, 50);
    rows.push([
      `${seconds} s`,
      ctx || "1500 (full)",
      cell(scaled),
      ctx ? cell(full) : "same",
      ctx ? `${fmt(p50(full) / p50(scaled), 2)}×` : "–",
      fmt(p50(scaled) / 1000 / seconds, 3),
    ]);
  }
  return rows;
}

async function sphinxRows(): Promise<(string | number)[][]> {
  const engine = await createSphinxEngine();
  const clips = [
    { id: "goforward", reference: "go forward ten meters", pcm: goForward() },
    ...librivoxClips(),
  ];
  await engine.transcribe(goForward());
  const rows: (string | number)[][] = [["clip", "audio s", "ms", "RTF"]];
  const pairs: { reference: string; hypothesis: string }[] = [];
  let audio = 0;
  let spent = 0;
  for (const { id, reference, pcm } of clips) {
    const started = performance.now();
    const { text } = await engine.transcribe(pcm);
    const ms = performance.now() - started;
    pairs.push({ reference, hypothesis: text });
    audio += pcm.length / 16_000;
    spent += ms;
    rows.push([
      id.replace("sense_and_sensibility_01_austen_64kb-", "librivox-"),
      fmt(pcm.length / 16_000, 2),
      fmt(ms, 0),
      fmt(ms / 1000 / (pcm.length / 16_000), 3),
    ]);
  }
  await engine.close();
  rows.push(["all", fmt(audio, 2), fmt(spent, 0), fmt(spent / 1000 / audio, 3)]);
  rows.push(["WER", `${fmt(wer(pairs) * 100, 1)} %`, "", ""]);
  return rows;
}

export async function run(): Promise<void> {
  // Timings on a shared machine swing with its load; say what it was.
  console.log(
    `load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")} on ${availableParallelism()} cores`,
  );
  const started = performance.now();
  const model = syntheticModel("base.en");
  console.log(`synthetic base.en model ready in ${fmt(performance.now() - started, 0)} ms`);
  const load = performance.now();
  const probe = await createWhisperEngine({ modelPath: model, threads: THREADS });
  console.log(`whisper base.en load: ${fmt(performance.now() - load, 0)} ms (page cache warm)`);
  await probe.close();
  console.log(`\nwhisper, ${THREADS} threads, greedy, decode capped at ~3.5 tokens/s of audio:`);
  table(await whisperRows(model));
  console.log("\nsphinx (PocketSphinx en-us, worker thread), pocketsphinx-testdata clips:");
  table(await sphinxRows());
}

if (import.meta.main) await run();
