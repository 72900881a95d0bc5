import { describe, expect, test } from "bun:test";
import { energyModel } from "../../../src/dictation/vad/energy.ts";
import { FRAME_MS } from "../../../src/dictation/vad/types.ts";
import { createVad } from "../../../src/dictation/vad/vad.ts";
import { goForward, librivoxClips } from "../../helpers/sphinx-testdata.ts";
import { backgrounds, whiteNoise, withNoise } from "./noise.ts";

// Silero VAD itself (onnxruntime-web, the embedded weights) on real speech from pocketsphinx's
// test data and on speech-free audio made in code.

const mean = (values: Float32Array) => values.reduce((sum, x) => sum + x, 0) / values.length;
const max = (values: Float32Array) => values.reduce((top, x) => Math.max(top, x), 0);

/** The probabilities of the frames that lie wholly between two times. */
function between(probabilities: Float32Array, fromMs: number, toMs: number): Float32Array {
  return probabilities.slice(Math.ceil(fromMs / FRAME_MS), Math.floor(toMs / FRAME_MS));
}

// sphinx's word times for goforward.raw: "go forward ten meters" from about 0.47 s to 2.12 s.
const WORDS = { startMs: 470, endMs: 2120 };

describe("Silero VAD", () => {
  const logs: { message: string; fields?: Record<string, unknown> }[] = [];
  const log = (message: string, fields?: Record<string, unknown>) => logs.push({ message, fields });
  const vad = createVad({ logger: { info: log, warn: log } });

  test("loads Silero, says so once, and nothing before first use", async () => {
    expect(vad.kind).toBeNull();
    expect(logs).toEqual([]);
    expect(await vad.warmUp()).toBe("silero");
    await vad.warmUp();
    expect(vad.kind).toBe("silero");
    expect(logs).toEqual([
      { message: "voice activity detector loaded", fields: { detector: "silero", ms: expect.any(Number) } },
    ]);
  }, 30_000);

  test("scores the words of goforward high and the silence around them low", async () => {
    const probabilities = await vad.probabilities(goForward());
    expect(probabilities.length).toBe(Math.ceil(goForward().length / 512));
    expect(mean(between(probabilities, WORDS.startMs + 100, WORDS.endMs - 100))).toBeGreaterThan(0.7);
    expect(max(between(probabilities, 0, 300))).toBeLessThan(0.3);
    expect(max(between(probabilities, 2500, 2790))).toBeLessThan(0.3);
  });

  test("one region for goforward: inside the clip, covering every word", async () => {
    const regions = await vad.speechRegions(goForward());
    expect(regions.length).toBe(1);
    const [region] = regions;
    expect(region?.startMs).toBeGreaterThan(200);
    expect(region?.startMs).toBeLessThanOrEqual(WORDS.startMs);
    expect(region?.endMs).toBeGreaterThanOrEqual(WORDS.endMs);
    expect(region?.endMs).toBeLessThanOrEqual((goForward().length / 16) | 0);
  });

  test("the LibriVox sentences are mostly speech, from the first word to the last", async () => {
    for (const clip of librivoxClips()) {
      const durationMs = clip.pcm.length / 16;
      const probabilities = await vad.probabilities(clip.pcm);
      const regions = await vad.speechRegions(clip.pcm);
      const covered = regions.reduce((sum, r) => sum + r.endMs - r.startMs, 0);
      expect({ clip: clip.id, meanAbove: mean(probabilities) > 0.6 }).toEqual({
        clip: clip.id,
        meanAbove: true,
      });
      expect({ clip: clip.id, covers: covered / durationMs > 0.8 }).toEqual({ clip: clip.id, covers: true });
      expect(regions[0]?.startMs).toBeLessThan(500);
      expect(regions.at(-1)?.endMs).toBeLessThanOrEqual(durationMs);
    }
  });

  test("finds goforward's words under white noise at 10 dB SNR", async () => {
    const noisy = withNoise(goForward(), 10);
    const regions = await vad.speechRegions(noisy);
    expect(regions.length).toBeGreaterThan(0);
    expect(regions[0]?.startMs).toBeLessThanOrEqual(WORDS.startMs + 100);
    expect(regions.at(-1)?.endMs).toBeGreaterThanOrEqual(WORDS.endMs - 100);
    expect(await vad.hasSpeech(noisy)).toBe(true);
  });

  test("digital silence scores low and holds no speech", async () => {
    const silence = new Float32Array(16_000 * 3);
    expect(max(await vad.probabilities(silence))).toBeLessThan(0.2);
    expect(await vad.speechRegions(silence)).toEqual([]);
    expect(await vad.hasSpeech(silence)).toBe(false);
  });

  test("white and pink noise, hum and room tone at -50, -35 and -20 dBFS hold no speech", async () => {
    for (const { name, pcm } of backgrounds(5)) {
      const probabilities = await vad.probabilities(pcm);
      expect({ name, mean: mean(probabilities) < 0.1 }).toEqual({ name, mean: true });
      expect({ name, regions: await vad.speechRegions(pcm) }).toEqual({ name, regions: [] });
      expect({ name, speech: await vad.hasSpeech(pcm) }).toEqual({ name, speech: false });
    }
  }, 30_000);

  test("speech after a long stretch of noise is still found", async () => {
    const [noise] = backgrounds(8).filter((b) => b.name === "pink at -35 dBFS");
    const speech = goForward();
    const clip = new Float32Array((noise?.pcm.length ?? 0) + speech.length);
    clip.set(noise?.pcm ?? []);
    clip.set(speech, noise?.pcm.length);
    const regions = await vad.speechRegions(clip);
    expect(regions.length).toBe(1);
    expect(regions[0]?.startMs).toBeGreaterThan(8000);
    expect(await vad.hasSpeech(clip)).toBe(true);
  });
});

describe("a VAD stream", () => {
  const vad = createVad();

  test("fed in uneven chunks, closes the same regions as the whole clip, as the pauses end", async () => {
    const pcm = goForward();
    const whole = await vad.speechRegions(pcm);
    const stream = vad.stream();
    const seen: { atMs: number; regions: unknown[] }[] = [];
    for (let at = 0; at < pcm.length; at += 700) {
      const regions = await stream.push(pcm.subarray(at, at + 700));
      if (regions.length) seen.push({ atMs: (at + 700) / 16, regions });
    }
    const rest = await stream.end();
    expect([...seen.flatMap((s) => s.regions), ...rest]).toEqual(whole);
    // goforward ends in 0.67 s of silence: the region closes before the end of the stream.
    expect(seen.length).toBe(1);
    expect(seen[0]?.atMs).toBeLessThan(pcm.length / 16);
  });

  test("each stream starts from a fresh model state", async () => {
    const quiet = whiteNoise(1, -40);
    const fresh = await vad.probabilities(quiet);
    // A stream left open in the middle of speech must not colour the next one.
    const open = vad.stream();
    await open.push(goForward().subarray(0, 16 * 1500));
    expect(Array.from(await vad.probabilities(quiet))).toEqual(Array.from(fresh));
    const [region] = await open.end();
    expect(region?.startMs).toBeLessThanOrEqual(WORDS.startMs);
  });

  test("while it scores a long push, the event loop gets turns: a timer set meanwhile fires first", async () => {
    const stream = vad.stream();
    await stream.push(new Float32Array(512));
    const order: string[] = [];
    const scoring = stream.push(whiteNoise(30, -30)).then(() => order.push("scored 30 s"));
    setTimeout(() => order.push("timer"), 0);
    await scoring;
    expect(order).toEqual(["timer", "scored 30 s"]);
  });

  test("cancelled, it scores nothing more of what was pushed and drops what comes after", async () => {
    let scored = 0;
    const counting = createVad({
      load: async () => {
        const model = energyModel();
        return {
          ...model,
          scorer: () => {
            const scorer = model.scorer();
            return {
              score(frame: Float32Array) {
                scored++;
                return scorer.score(frame);
              },
            };
          },
        };
      },
    });
    const stream = counting.stream();
    const pushed = stream.push(whiteNoise(10, -30));
    stream.cancel();
    expect(await pushed).toEqual([]);
    expect(await stream.push(whiteNoise(10, -30))).toEqual([]);
    // Ten seconds are 313 frames; at most the first was under way.
    expect(scored).toBeLessThanOrEqual(1);
  });

  test("an open region is closed by end() at the end of the audio", async () => {
    const speech = goForward().subarray(0, 16 * 1500);
    const stream = vad.stream();
    expect(await stream.push(speech)).toEqual([]);
    const [region] = await stream.end();
    expect(region?.endMs).toBe(1500);
  });
});

describe("Silero VAD in its own process", () => {
  test("a server in this process answers while the detector loads", async () => {
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("ok") });
    const vad = createVad();
    let loaded = false;
    const loading = vad.warmUp().then(() => {
      loaded = true;
    });
    const answer = await fetch(`http://127.0.0.1:${server.port}/`);
    expect(await answer.text()).toBe("ok");
    expect(loaded).toBe(false);
    await loading;
    expect(vad.kind).toBe("silero");
    await vad.unload();
    await server.stop(true);
  }, 30_000);

  test("unloads only when nothing is scored, says so once, and loads again on the next use", async () => {
    const logs: string[] = [];
    const log = (message: string) => logs.push(message);
    const vad = createVad({ logger: { info: log, warn: log } });
    const stream = vad.stream();
    await stream.push(goForward().subarray(0, 16 * 500));
    expect(vad.kind).toBe("silero");
    expect(await vad.unload()).toBe(false);
    await stream.end();
    expect(await vad.unload()).toBe(true);
    expect(vad.kind).toBeNull();
    // Nothing held: nothing more to give back, and nothing said.
    expect(await vad.unload()).toBe(true);
    const regions = await vad.speechRegions(goForward());
    expect(regions).toHaveLength(1);
    expect(vad.kind).toBe("silero");
    expect(logs.filter((line) => line.startsWith("voice activity detector"))).toEqual([
      "voice activity detector loaded",
      "voice activity detector unloaded",
      "voice activity detector loaded",
    ]);
    await vad.unload();
  }, 30_000);
});
