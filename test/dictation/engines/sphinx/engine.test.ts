import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSphinxEngine, probeSphinx } from "../../../../src/dictation/engines/sphinx/engine.ts";
import type { SpeechEngine } from "../../../../src/dictation/engines/types.ts";
import { rejection } from "../../../helpers/errors.ts";
import { goForward, librivoxClips } from "../../../helpers/sphinx-testdata.ts";
import { wer } from "../../../helpers/wer.ts";

// Real speech, real engine: Debian's libpocketsphinx3 + pocketsphinx-en-us + pocketsphinx-testdata.
let engine: SpeechEngine;
const unspellable: string[][] = [];
beforeAll(async () => {
  engine = await createSphinxEngine({ onUnspellable: (words) => unspellable.push(words) });
});
afterAll(() => engine.close());

describe("probeSphinx", () => {
  test("finds the Debian libraries and model", () => {
    expect(probeSphinx()).toEqual({ available: true });
  });

  test("reports a missing model with the apt-get command that installs it", () => {
    const result = probeSphinx("/nonexistent/en-us");
    expect(result).toMatchObject({ available: false, reason: expect.stringContaining("/nonexistent/en-us") });
    expect(result.available ? "" : result.hint).toContain(
      "apt-get install -y libpocketsphinx3 pocketsphinx-en-us",
    );
  });
});

describe("sphinx engine", () => {
  test('recognises goforward.raw as exactly "go forward ten meters"', async () => {
    const result = await engine.transcribe(goForward());
    expect(result.text).toBe("go forward ten meters");
    expect(result.language).toBe("en");
    expect(result.segments).toHaveLength(1);
    expect(result.segments[0]?.text).toBe("go forward ten meters");
    // The words start after ~0.46 s of silence and the clip is 2.8 s long.
    expect(result.segments[0]?.startMs).toBeWithin(300, 700);
    expect(result.segments[0]?.endMs).toBeWithin(1800, 2800);
  });

  test("stays under 35 % word error rate on the LibriVox clips", async () => {
    const pairs = [];
    for (const clip of librivoxClips()) {
      pairs.push({ reference: clip.reference, hypothesis: (await engine.transcribe(clip.pcm)).text });
    }
    expect(pairs).toHaveLength(5);
    expect(wer(pairs)).toBeLessThan(0.35);
  }, 30_000);

  test("gives the same words and times for the same audio whatever it decoded before", async () => {
    // A fresh decoder: its first utterance is the one a carried-over cepstral mean changed most.
    const fresh = await createSphinxEngine();
    try {
      const clips = librivoxClips();
      const first = clips[0]?.pcm ?? goForward();
      const before = await fresh.transcribe(first);
      const joined = new Float32Array(clips.reduce((sum, clip) => sum + clip.pcm.length, 0));
      let offset = 0;
      for (const clip of clips) {
        joined.set(clip.pcm, offset);
        offset += clip.pcm.length;
      }
      // A long utterance after others: its times count from its own start and stay inside it.
      const long = await fresh.transcribe(joined);
      expect(long.segments.length).toBeGreaterThan(0);
      for (const segment of long.segments) {
        expect(segment.startMs).toBeGreaterThanOrEqual(0);
        expect(segment.endMs).toBeLessThanOrEqual((joined.length / 16_000) * 1000);
      }
      await fresh.transcribe(goForward());
      expect(await fresh.transcribe(first)).toEqual(before);
    } finally {
      await fresh.close();
    }
  }, 60_000);

  test("keeps the event loop free while decoding in its worker", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const started = performance.now();
    await engine.transcribe(goForward());
    clearInterval(timer);
    expect(ticks).toBeGreaterThan((performance.now() - started) / 5 / 4);
  });

  test("writes vocabulary terms the way the vocabulary spells them", async () => {
    expect((await engine.transcribe(goForward(), { vocabulary: ["Go Forward"] })).text).toBe(
      "Go Forward ten meters",
    );
  });

  test("adds terms the dictionary can spell as new words, and reports those it cannot", async () => {
    // "TenMeters" is not in the dictionary; it is spelled from "ten" + "meters" and then recognised.
    const result = await engine.transcribe(goForward(), { vocabulary: ["TenMeters", "Kubernetes"] });
    expect(result.text).toBe("go forward TenMeters");
    expect(unspellable).toContainEqual(["Kubernetes"]);
  }, 15_000);

  test("rejects at once when aborted and keeps serving", async () => {
    const controller = new AbortController();
    const pending = engine.transcribe(librivoxClips()[0]?.pcm ?? goForward(), { signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    const error = await rejection(pending);
    expect(error instanceof DOMException && error.name === "AbortError").toBe(true);
    expect((await engine.transcribe(goForward(), { vocabulary: [] })).text).toMatch(/^go forward ten/);
  });

  test("refuses other languages and empty input costs nothing", async () => {
    expect(await rejection(engine.transcribe(goForward(), { language: "fr" }))).toMatchObject({
      status: 422,
      code: "unsupported_language",
    });
    expect(await engine.transcribe(new Float32Array(0))).toEqual({ text: "", segments: [], language: "en" });
  });

  test("English with a region (en-US, en_GB) is English", async () => {
    expect((await engine.transcribe(goForward(), { language: "en-US" })).text).toMatch(/^go forward ten/);
    expect((await engine.transcribe(new Float32Array(0), { language: "en_GB" })).language).toBe("en");
    expect(await rejection(engine.transcribe(goForward(), { language: "fr-CA" }))).toMatchObject({
      code: "unsupported_language",
    });
  });

  test("rejects calls after close", async () => {
    const closing = await createSphinxEngine();
    await closing.close();
    await closing.close();
    expect(await rejection(closing.transcribe(goForward()))).toMatchObject({ status: 503 });
  });
});
