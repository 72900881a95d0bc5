import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { loadWhisperAddon } from "../../../../src/dictation/engines/whisper/binding.ts";
import { createWhisperEngine, type WhisperEngine } from "../../../../src/dictation/engines/whisper/engine.ts";
import { rejection } from "../../../helpers/errors.ts";
import { syntheticModel } from "../../../helpers/synthetic-model.ts";

// Synthetic weights: transcripts are gibberish, so these tests assert structure and behaviour only.
const micro = syntheticModel("micro");
const tone = (seconds: number) =>
  new Float32Array(Math.round(16_000 * seconds)).map((_, i) => Math.sin(i / 9) * 0.2);
/** Deterministic and bounded: no temperature fallback re-decodes, at most 16 tokens per segment. */
const quick = { temperatureIncrement: 0, maxTokensPerSegment: 16 };

let engine: WhisperEngine;
beforeAll(async () => {
  engine = await createWhisperEngine({ modelPath: micro, threads: 1, ...quick });
});
afterAll(() => engine.close());

/** The value a promise rejects with (DOMException's `name` is a getter, which `toMatchObject` misses). */
const isAbort = (error: unknown) => error instanceof DOMException && error.name === "AbortError";

/**
 * The threads of Bun's worker pool, on which the addon runs whisper.cpp: the threads whisper.cpp
 * starts there inherit the pool thread's name. The process's whole count also moves with the
 * JavaScript engine's own threads, which come and go on demand (its collector's helpers, and more).
 */
function threadCount(): number {
  let count = 0;
  for (const task of readdirSync("/proc/self/task")) {
    try {
      if (readFileSync(`/proc/self/task/${task}/comm`, "utf8").startsWith("Bun Pool")) count++;
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return count;
}

describe("whisper engine", () => {
  test("transcribes into text, timed segments and a language", async () => {
    const result = await engine.transcribe(tone(3));
    expect(typeof result.text).toBe("string");
    expect(result.language).toBe("en");
    expect(Array.isArray(result.segments)).toBe(true);
    for (const segment of result.segments) {
      expect([typeof segment.startMs, typeof segment.endMs, typeof segment.text]).toEqual([
        "number",
        "number",
        "string",
      ]);
      expect(segment.endMs).toBeGreaterThanOrEqual(segment.startMs);
      // Token ids of the text only (below end-of-text), their mean log probability, no words unasked.
      for (const id of segment.tokens ?? []) expect(id).toBeLessThan(50256);
      if (segment.tokens?.length) expect(segment.avgLogprob).toBeLessThanOrEqual(0);
      expect(segment.words).toBeUndefined();
    }
  });

  test("times words when asked, inside their segment", async () => {
    const result = await engine.transcribe(tone(3), { words: true });
    for (const segment of result.segments) {
      expect(Array.isArray(segment.words)).toBe(true);
      for (const word of segment.words ?? []) {
        expect(word.word.length).toBeGreaterThan(0);
        expect(word.endMs).toBeGreaterThanOrEqual(word.startMs);
        expect(word.startMs).toBeGreaterThanOrEqual(segment.startMs - 10);
        expect(word.endMs).toBeLessThanOrEqual(segment.endMs + 10);
      }
    }
  });

  test("an English-only model refuses to translate, naming what can", async () => {
    const error = await rejection(engine.transcribe(tone(2), { translate: true }));
    expect(error).toMatchObject({ code: "translation_unsupported" });
    expect((error as Error).message).toContain("multilingual model");
  });

  test("reports the loaded model and defaults threads to the core count", async () => {
    expect(engine.model).toMatchObject({ nState: 64, multilingual: false });
    const defaults = await createWhisperEngine({ modelPath: micro, ...quick });
    expect(defaults.threads).toBe(availableParallelism());
    await defaults.close();
  });

  test("runs with the number of threads asked for", async () => {
    const peakExtraThreads = async (threads: number) => {
      const probe = await createWhisperEngine({ modelPath: micro, threads, ...quick });
      await probe.transcribe(tone(1)); // the addon's worker thread exists from here on
      const before = threadCount();
      let peak = before;
      const timer = setInterval(() => {
        peak = Math.max(peak, threadCount());
      }, 1);
      await probe.transcribe(tone(10));
      clearInterval(timer);
      await probe.close();
      return peak - before;
    };
    expect(await peakExtraThreads(1)).toBe(0);
    expect(await peakExtraThreads(2)).toBeGreaterThanOrEqual(1);
  }, 30_000);

  test("keeps the event loop free while transcribing", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 2);
    const started = performance.now();
    await engine.transcribe(tone(20));
    clearInterval(timer);
    const elapsed = performance.now() - started;
    expect(ticks).toBeGreaterThan(elapsed / 2 / 4);
  });

  test("returns empty text for empty input and pads clips under a second", async () => {
    expect(await engine.transcribe(new Float32Array(0))).toEqual({ text: "", segments: [], language: "en" });
    expect(typeof (await engine.transcribe(tone(0.3))).text).toBe("string");
  });

  test("serves concurrent calls one at a time, each with its own answer", async () => {
    const clip = tone(2);
    const order: number[] = [];
    const results = await Promise.all(
      [0, 1, 2, 3].map(async (i) => {
        const result = await engine.transcribe(clip, { prompt: "Svc." });
        order.push(i);
        return result;
      }),
    );
    expect(order).toEqual([0, 1, 2, 3]);
    for (const result of results) expect(result.text).toBe(results[0]?.text ?? "");
  });

  test("rejects at once with the abort reason, before or during a run", async () => {
    expect(isAbort(await rejection(engine.transcribe(tone(1), { signal: AbortSignal.abort() })))).toBe(true);

    // tiny.en on one thread needs ~0.5 s or more for 10 s of audio: long enough to abort mid-run.
    const slow = await createWhisperEngine({ modelPath: syntheticModel("tiny.en"), threads: 1, ...quick });
    const controller = new AbortController();
    const running = slow.transcribe(tone(10), { signal: controller.signal });
    const queued = slow.transcribe(tone(10), { signal: controller.signal });
    await Bun.sleep(30);
    const abortedAt = performance.now();
    controller.abort();
    expect(isAbort(await rejection(running))).toBe(true);
    expect(isAbort(await rejection(queued))).toBe(true);
    expect(performance.now() - abortedAt).toBeLessThan(50);
    // The native run stopped too (see below); the engine stays usable afterwards.
    expect(typeof (await slow.transcribe(tone(1))).text).toBe("string");
    await slow.close();
  }, 30_000);

  test("an abort stops the native run itself, before or during it (svc's patch of the binding)", async () => {
    const addon = loadWhisperAddon();
    const model = await addon.WhisperModel.load(syntheticModel("tiny.en"), false);
    const run = (abortAfterMs: number | null) => {
      const abort = new Int32Array(new SharedArrayBuffer(4));
      if (abortAfterMs === 0) Atomics.store(abort, 0, 1);
      else if (abortAfterMs !== null) setTimeout(() => Atomics.store(abort, 0, 1), abortAfterMs);
      const params = { n_threads: 1, language: "en", temperature_inc: 0, max_tokens: 16, abort };
      return new Promise<unknown>((resolve) =>
        addon.transcribe(model.handle, tone(10), params, resolve, () => {}),
      );
    };
    // A stopped run answers an error (mid-window) or no segments (before a window); unpatched, each
    // would answer the whole run's segments.
    const segments = (result: unknown) => (Array.isArray(result) ? result.length : 0);
    try {
      expect(segments(await run(null))).toBeGreaterThan(0);
      expect(segments(await run(0))).toBe(0);
      expect(segments(await run(30))).toBe(0);
    } finally {
      await model.free();
    }
  }, 30_000);

  test("refuses languages an English-only model cannot transcribe", async () => {
    await expect(engine.transcribe(tone(1), { language: "de" })).rejects.toMatchObject({
      code: "unsupported_language",
    });
    await expect(engine.transcribe(tone(1), { language: "xx" })).rejects.toMatchObject({ status: 422 });
    expect((await engine.transcribe(tone(1), { language: "auto" })).language).toBe("en");
  });

  test("a large-v3-turbo layout (128 mels, 4 decoder layers under 32) loads and transcribes", async () => {
    // The benchmarks' large-v3-turbo preset at a width that loads in a moment: svc's CPU builds read the
    // v3 mel count and vocabulary and the turbo's shallow decoder as whisper.cpp's own tools do.
    const v3 = await createWhisperEngine({ modelPath: syntheticModel("micro-v3"), threads: 1, ...quick });
    try {
      expect(v3.model).toMatchObject({ nMels: 128, nAudioLayer: 32, nTextLayer: 4, multilingual: true });
      const result = await v3.transcribe(tone(2), { language: "de" });
      expect(typeof result.text).toBe("string");
      expect(result.language).toBe("de");
    } finally {
      await v3.close();
    }
  });

  test("rejects calls after close", async () => {
    const closing = await createWhisperEngine({ modelPath: micro, threads: 1, ...quick });
    await closing.close();
    await closing.close();
    await expect(closing.transcribe(tone(1))).rejects.toMatchObject({ code: "engine_closed" });
  });
});

describe("whisper engine with a damaged model file", () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-whisper-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test.each([
    ["truncated", (b: Buffer) => b.subarray(0, b.length - 4096)],
    ["cut in the vocabulary", (b: Buffer) => b.subarray(0, 70_000)],
    ["zeroed header", (b: Buffer) => Buffer.concat([Buffer.alloc(48), b.subarray(48)])],
  ])("fails with a clean 422 when the file is %s, and the process carries on", async (name, damage) => {
    const path = join(dir, `${name}.bin`);
    writeFileSync(path, damage(readFileSync(micro)));
    await expect(createWhisperEngine({ modelPath: path, threads: 1 })).rejects.toMatchObject({
      status: 422,
      code: "invalid_model",
    });
    expect(typeof (await engine.transcribe(tone(1))).text).toBe("string");
  });
});
