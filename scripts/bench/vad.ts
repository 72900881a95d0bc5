// Voice-activity detector benchmark: what deciding "is there speech?" costs per second of audio,
// beside what the speech engines cost for the same seconds, measured in one run. Silero VAD runs on
// ONNX Runtime's WebAssembly build on one thread; the energy detector is its fallback. The batch
// path asks `hasSpeech`, which stops at the first word, so it pays the full scan only on audio
// without speech (and then saves the engine's whole run).
import { availableParallelism, loadavg } from "node:os";
import { createSphinxEngine } from "../../src/dictation/engines/sphinx/engine.ts";
import type { SpeechEngine } from "../../src/dictation/engines/types.ts";
import { createWhisperEngine } from "../../src/dictation/engines/whisper/engine.ts";
import { createVad, type Vad } from "../../src/dictation/vad/vad.ts";
import { librivoxClips } from "../../test/helpers/sphinx-testdata.ts";
import { syntheticModel } from "../../test/helpers/synthetic-model.ts";
import { fmt, percentile, table, timedMedian } from "./util.ts";

const SECONDS = 30;
const REPEATS = 5;

/** The LibriVox sentences back to back, looped to `seconds`. */
function speech(seconds: number): Float32Array {
  const clips = librivoxClips().map((clip) => clip.pcm);
  const out = new Float32Array(seconds * 16_000);
  let at = 0;
  while (at < out.length) {
    for (const clip of clips) {
      out.set(clip.subarray(0, out.length - at), at);
      at += Math.min(clip.length, out.length - at);
    }
  }
  return out;
}

function noise(seconds: number): Float32Array {
  let seed = 11;
  return new Float32Array(seconds * 16_000).map(() => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return (seed / 2 ** 32 - 0.5) * 0.1;
  });
}

const p50 = (fn: () => Promise<unknown>, repeats = REPEATS) => timedMedian(repeats, fn);

const rssMb = () => process.memoryUsage().rss / 2 ** 20;

/** The four measurements taken in turn, round after round, so a busy moment hits them all alike. */
async function detectorRows(name: string, vad: Vad, talk: Float32Array, quiet: Float32Array) {
  const runs = [
    () => vad.probabilities(talk),
    () => vad.probabilities(quiet),
    () => vad.hasSpeech(talk),
    () => vad.hasSpeech(quiet),
  ];
  const times = runs.map(() => [] as number[]);
  for (let round = 0; round < REPEATS; round++) {
    for (const [i, fn] of runs.entries()) times[i]?.push(await p50(fn, 1));
  }
  const [full = 0, fullNoise = 0, early = 0, noSpeech = 0] = times.map((t) =>
    percentile(
      t.sort((a, b) => a - b),
      50,
    ),
  );
  return [
    [`${name}: every frame, speech`, fmt(full, 0), fmt(full / SECONDS, 1)],
    [`${name}: every frame, noise`, fmt(fullNoise, 0), fmt(fullNoise / SECONDS, 1)],
    [`${name}: hasSpeech, speech (stops at the first word)`, fmt(early, 1), "–"],
    [`${name}: hasSpeech, noise (whole clip)`, fmt(noSpeech, 0), fmt(noSpeech / SECONDS, 1)],
  ];
}

/** The engine's p50 in ms per audio second. */
async function perSecond(engine: SpeechEngine, pcm: Float32Array, repeats: number): Promise<number> {
  await engine.transcribe(pcm.subarray(0, 16_000));
  const ms = await p50(() => engine.transcribe(pcm), repeats);
  await engine.close();
  return ms / (pcm.length / 16_000);
}

export async function run(): Promise<void> {
  console.log(
    `load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")} on ${availableParallelism()} cores`,
  );
  const talk = speech(SECONDS);
  const quiet = noise(SECONDS);
  const before = rssMb();
  const loading = performance.now();
  const silero = createVad();
  await silero.warmUp();
  console.log(
    `Silero VAD loaded in ${fmt(performance.now() - loading, 0)} ms (WebAssembly compiled, model primed); ` +
      `RSS +${fmt(rssMb() - before, 0)} MiB`,
  );
  const energy = createVad({
    load: async () => {
      throw new Error("benchmarking the fallback");
    },
  });
  const rows: (string | number)[][] = [[`on ${SECONDS} s of audio`, "p50 ms", "ms per audio s"]];
  rows.push(...(await detectorRows("silero", silero, talk, quiet)));
  rows.push(...(await detectorRows("energy", energy, talk, quiet)));
  const tenSeconds = talk.subarray(0, 10 * 16_000);
  const sphinx = await perSecond(await createSphinxEngine(), tenSeconds, 3);
  const whisper = await perSecond(
    await createWhisperEngine({
      modelPath: syntheticModel("base.en"),
      threads: 2,
      temperatureIncrement: 0,
      maxTokensPerSegment: 40,
    }),
    tenSeconds,
    3,
  );
  rows.push(["sphinx engine, 10 s of the same speech", fmt(sphinx * 10, 0), fmt(sphinx, 1)]);
  rows.push(["whisper base.en (synthetic), 2 threads, 10 s", fmt(whisper * 10, 0), fmt(whisper, 1)]);
  table(rows);
  // What the batch path pays on speech-free audio, against what it saves.
  const silent = (await p50(() => silero.hasSpeech(quiet))) / SECONDS;
  console.log(
    `Silero on speech-free audio: ${fmt(silent, 1)} ms per audio second, ` +
      `${fmt((silent / sphinx) * 100, 1)} % of sphinx's and ${fmt((silent / whisper) * 100, 1)} % of whisper base.en's`,
  );
}

if (import.meta.main) await run();
