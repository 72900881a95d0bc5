import { describe, expect, test } from "bun:test";
import type { HistoryEntry } from "../../src/dictation/complete.ts";
import type { ActiveEngine, EngineOverrides } from "../../src/dictation/engine-provider.ts";
import type { EngineId } from "../../src/dictation/engines/ids.ts";
import type { SpeechEngine, TranscribeOptions } from "../../src/dictation/engines/types.ts";
import { windowSamples } from "../../src/dictation/recognise.ts";
import { createScheduler } from "../../src/dictation/scheduler.ts";
import { createTranscriber, type TranscriberDeps } from "../../src/dictation/transcriber.ts";
import { createDictationApi } from "../../src/plugins/hook-api.ts";
import type { BeforeTranscribeHook } from "../../src/plugins/hooks-audio.ts";
import { appErrorOf } from "../helpers/errors.ts";

// The transcriber's logic with its ports as small fakes: an engine that answers from a script,
// decoding that hands the bytes through as samples. The real engines and decoders are tested on
// real speech elsewhere; here timeouts, the queue, silence and chunking are checked in milliseconds.

const tone = (samples: number) => new Float32Array(samples).map((_, i) => Math.sin(i / 7) * 0.3);

interface Fake {
  deps: TranscriberDeps;
  calls: { samples: number; options: TranscribeOptions }[];
  recorded: HistoryEntry[];
  published: Record<string, unknown>[];
  postProcessed: string[];
  engineRequests: (EngineId | undefined)[];
  engineChoices: EngineOverrides[];
}

function fake(
  options: {
    answer?: (samples: Float32Array, call: number) => string | Promise<string>;
    pcm?: Float32Array;
    timeoutMs?: number;
    maxQueued?: number;
    id?: EngineId;
  } = {},
): Fake {
  const calls: Fake["calls"] = [];
  const engineRequests: (EngineId | undefined)[] = [];
  const engineChoices: EngineOverrides[] = [];
  const recorded: HistoryEntry[] = [];
  const published: Record<string, unknown>[] = [];
  const postProcessed: string[] = [];
  const engine: SpeechEngine = {
    id: options.id ?? "whisper",
    async transcribe(pcm, opts = {}) {
      calls.push({ samples: pcm.length, options: opts });
      // As the real engines do: an aborted call rejects with the signal's reason.
      const aborted = new Promise<never>((_, reject) => {
        if (opts.signal?.aborted) reject(opts.signal.reason);
        opts.signal?.addEventListener("abort", () => reject(opts.signal?.reason), { once: true });
      });
      const answer = Promise.resolve((options.answer ?? (() => "hello"))(pcm, calls.length));
      const text = await Promise.race([answer, aborted]);
      return { text, segments: text ? [{ startMs: 100, endMs: 900, text }] : [], language: "en" };
    },
    close: async () => {},
  };
  const active: ActiveEngine = {
    engine,
    id: engine.id,
    model: "fake-model",
    prompt: "Kubernetes, Grafana",
    vocabulary: ["Kubernetes", "Grafana"],
    clean: (text) => text,
  };
  const pcm = options.pcm ?? tone(16_000);
  const deps: TranscriberDeps = {
    decode: async () => ({ pcm, durationMs: (pcm.length / 16_000) * 1000 }),
    engine: async (override, choice = {}) => {
      engineRequests.push(override);
      engineChoices.push(choice);
      return active;
    },
    scheduler: createScheduler({
      maxQueued: () => options.maxQueued ?? 16,
      estimateMs: () => 100,
      concurrency: () => 1,
    }),
    postProcess: async ({ text }) => {
      postProcessed.push(text);
      return {
        text: `${text}!`,
        deterministic: text,
        timings: { cleanup: 1, dictionary: 1, plugins: 1 },
        format: null,
        disposition: "deliver",
        reason: null,
        consumedBy: null,
        mode: "paste",
      };
    },
    newDictation: () => createDictationApi(),
    record: (entry) => {
      recorded.push(entry);
      return recorded.length;
    },
    dictionary: (text) => text.replace(/grafana/gi, "Grafana"),
    publish: (_type, data) => published.push(data),
    limits: () => ({
      maxAudioMs: 600_000,
      timeoutMs: options.timeoutMs ?? 10_000,
      language: "auto",
      hookTimeoutMs: 200,
      engine: "whisper",
      modelOf: () => "base.en",
    }),
  };
  return { deps, calls, recorded, published, postProcessed, engineRequests, engineChoices };
}

const audio = new Uint8Array(4);

describe("createTranscriber", () => {
  test("runs the engine with the prompt and vocabulary, post-processes, records and publishes", async () => {
    const f = fake();
    const result = await createTranscriber(f.deps).transcribe({ audio, contentType: "audio/wav" });
    expect(result).toMatchObject({
      text: "hello!",
      raw: "hello",
      engine: "whisper",
      model: "fake-model",
      historyId: 1,
    });
    expect(f.calls[0]?.options).toMatchObject({
      prompt: "Kubernetes, Grafana",
      vocabulary: ["Kubernetes", "Grafana"],
    });
    expect(f.calls[0]?.options.language).toBeUndefined();
    expect(f.recorded[0]).toMatchObject({ raw: "hello", text: "hello!", deterministic: "hello" });
    expect(f.published).toEqual([expect.objectContaining({ historyId: 1, engine: "whisper" })]);
  });

  test("silence never reaches the engine and answers empty text, not post-processed", async () => {
    const f = fake({ pcm: new Float32Array(32_000) });
    const result = await createTranscriber(f.deps).transcribe({ audio });
    expect(f.calls).toHaveLength(0);
    expect(f.postProcessed).toHaveLength(0);
    expect(result.text).toBe("");
  });

  test("an empty transcript is not history: historyId null, the completion still published", async () => {
    for (const f of [fake({ pcm: new Float32Array(32_000) }), fake({ answer: () => "  " })]) {
      const result = await createTranscriber(f.deps).transcribe({ audio });
      expect(result).toMatchObject({ text: expect.stringMatching(/^\s*$/), historyId: null });
      expect(f.recorded).toEqual([]);
      expect(f.published).toEqual([expect.objectContaining({ historyId: null })]);
    }
  });

  test("audio longer than one window is cut into chunks whose texts are joined in order", async () => {
    const f = fake({ pcm: tone(windowSamples * 2 + 16_000), answer: (_, call) => `part${call}` });
    const result = await createTranscriber(f.deps).transcribe({ audio });
    expect(f.calls.length).toBeGreaterThanOrEqual(3);
    expect(f.calls.every((call) => call.samples <= windowSamples)).toBe(true);
    expect(result.raw).toBe(f.calls.map((_, i) => `part${i + 1}`).join(" "));
  });

  test("detail: each chunk's segments on the clip's timeline, carrying the finished text", async () => {
    const f = fake({ pcm: tone(windowSamples * 2 + 16_000), answer: (_, call) => `grafana ${call}` });
    const result = await createTranscriber(f.deps).transcribe({ audio, detail: true });
    // Chunks are cut at quiet points near each window's end: each one starts where the last ended.
    const starts = f.calls.map((_, i) =>
      f.calls.slice(0, i).reduce((ms, call) => ms + (call.samples / 16_000) * 1000, 0),
    );
    expect(starts).toHaveLength(3);
    expect(result.segments).toEqual(
      starts.map((start, i) => ({
        startMs: Math.round(start + 100),
        endMs: Math.round(start + 900),
        // The pipeline's finished text ("…!" here), lined up with each chunk's words.
        text: i === 2 ? `grafana ${i + 1}!` : `grafana ${i + 1}`,
      })),
    );
    // Without detail there are none; with the engine's text asked for, the dictionary stays out.
    expect((await createTranscriber(f.deps).transcribe({ audio })).segments).toBeUndefined();
    const raw = await createTranscriber(f.deps).transcribe({
      audio,
      detail: true,
      request: { skipPostProcess: true },
    });
    expect(raw.segments?.[0]?.text).toStartWith("grafana");
  });

  test("the request's model, prompt, task and source reach the engine and history", async () => {
    const f = fake();
    await createTranscriber(f.deps).transcribe({
      audio,
      request: {
        model: "small",
        prompt: "Earlier text.",
        translate: true,
        words: true,
        temperature: 0.4,
        source: "openai",
      },
    });
    expect(f.engineChoices.at(-1)).toMatchObject({ model: "small", prompt: "Earlier text." });
    expect(f.calls.at(-1)?.options).toMatchObject({ translate: true, words: true, temperature: 0.4 });
    expect(f.recorded.at(-1)?.source).toBe("openai");
  });

  test("a transcription over its time limit is stopped with 504 timeout", async () => {
    const f = fake({
      timeoutMs: 50,
      answer: (_pcm, _call) => new Promise<string>((resolve) => setTimeout(() => resolve("late"), 2_000)),
    });
    const error = await appErrorOf(createTranscriber(f.deps).transcribe({ audio }));
    expect({ status: error.status, code: error.code }).toEqual({ status: 504, code: "timeout" });
    expect(f.recorded).toHaveLength(0);
  });

  test("beyond the queue the scheduler answers 503 busy with Retry-After while the others finish", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const f = fake({ maxQueued: 1, answer: () => gate.then(() => "done") });
    const transcriber = createTranscriber(f.deps);
    const running = transcriber.transcribe({ audio });
    const queued = transcriber.transcribe({ audio });
    await Bun.sleep(5);
    const error = await appErrorOf(transcriber.transcribe({ audio }));
    expect({ status: error.status, code: error.code }).toEqual({ status: 503, code: "busy" });
    expect(Number(error.headers["Retry-After"])).toBeGreaterThan(0);
    release();
    expect((await running).raw).toBe("done");
    expect((await queued).raw).toBe("done");
  });

  test("record: false stores nothing and answers historyId null; skipPostProcess keeps the raw text", async () => {
    const f = fake();
    const result = await createTranscriber(f.deps).transcribe({
      audio,
      request: { record: false, skipPostProcess: true },
    });
    expect(result).toMatchObject({ historyId: null, text: "hello", raw: "hello" });
    expect(f.recorded).toHaveLength(0);
    expect(f.postProcessed).toHaveLength(0);
  });

  test("a client that hangs up while queued never reaches the engine", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const f = fake({ answer: () => gate.then(() => "done") });
    const transcriber = createTranscriber(f.deps);
    const first = transcriber.transcribe({ audio });
    const client = new AbortController();
    const second = transcriber.transcribe({ audio, signal: client.signal });
    await Bun.sleep(5);
    client.abort(new Error("client went away"));
    expect(await appErrorOf(second).catch((error: unknown) => error)).toBeDefined();
    release();
    await first;
    expect(f.calls).toHaveLength(1);
  });
});

describe("beforeTranscribe hooks", () => {
  const hook = (pluginName: string, run: BeforeTranscribeHook["run"]): BeforeTranscribeHook => ({
    pluginName,
    run,
  });

  test("one that consumes answers the dictation: no engine loads, its text goes through the pipeline", async () => {
    const f = fake();
    f.deps.beforeTranscribe = () => [
      hook("@a/command", (input, output) => {
        expect(input.sampleRate).toBe(16_000);
        output.text = "lights on";
        output.consume = true;
      }),
    ];
    const result = await createTranscriber(f.deps).transcribe({ audio });
    expect(f.engineRequests).toHaveLength(0);
    expect(f.calls).toHaveLength(0);
    expect(result).toMatchObject({ raw: "lights on", text: "lights on!", model: "plugin:@a/command" });
  });

  test("they swap the audio, the engine and the language for one dictation, in order", async () => {
    const f = fake();
    const seen: number[] = [];
    f.deps.beforeTranscribe = () => [
      hook("@a/trim", (input, output) => {
        seen.push(input.pcm.length);
        output.pcm = input.pcm.subarray(0, 8_000);
        output.language = "de";
      }),
      hook("@a/engine", (input, output) => {
        seen.push(input.pcm.length);
        expect(input.language).toBe("de");
        output.engine = "sphinx";
      }),
    ];
    await createTranscriber(f.deps).transcribe({ audio });
    expect(seen).toEqual([16_000, 8_000]);
    expect(f.engineRequests).toEqual(["sphinx"]);
    expect(f.calls[0]).toMatchObject({ samples: 8_000, options: { language: "de" } });
  });

  test("a hook that fails or answers nonsense is reported and its changes dropped", async () => {
    const f = fake();
    const warnings: string[] = [];
    f.deps.warn = (message) => warnings.push(message);
    f.deps.beforeTranscribe = () => [
      hook("@a/throws", () => {
        throw new Error("boom");
      }),
      hook("@a/bad", (_input, output) => {
        output.engine = "nonsense";
      }),
    ];
    const result = await createTranscriber(f.deps).transcribe({ audio });
    expect(result.raw).toBe("hello");
    expect(f.engineRequests).toEqual([undefined]);
    expect(warnings).toEqual([
      'plugin "@a/throws" failed in beforeTranscribe: boom',
      'plugin "@a/bad" failed in beforeTranscribe: output.engine "nonsense" is not an engine',
    ]);
  });

  test("they choose the model, vocabulary and language; malformed ones are reported and dropped", async () => {
    const f = fake();
    const warnings: string[] = [];
    f.deps.warn = (message) => warnings.push(message);
    f.deps.beforeTranscribe = () => [
      hook("@a/bias", (_input, output) => {
        output.model = "small.en";
        output.vocabulary = ["Zanzibar"];
      }),
      hook("@a/bad-model", (_input, output) => {
        (output as { model: unknown }).model = 42;
      }),
      hook("@a/bad-terms", (_input, output) => {
        (output as { vocabulary: unknown }).vocabulary = ["ok", 7];
      }),
      hook("@a/language", (_input, output) => {
        output.language = "DE_at";
      }),
      hook("@a/bad-language", (_input, output) => {
        output.language = "Klingon!";
      }),
    ];
    await createTranscriber(f.deps).transcribe({ audio });
    expect(f.engineChoices).toEqual([{ model: "small.en", vocabulary: ["Zanzibar"] }]);
    expect(f.calls[0]?.options.language).toBe("de-at");
    expect(warnings).toEqual([
      'plugin "@a/bad-model" failed in beforeTranscribe: output.model must be a string',
      'plugin "@a/bad-terms" failed in beforeTranscribe: output.vocabulary must be an array of strings',
      'plugin "@a/bad-language" failed in beforeTranscribe: output.language "Klingon!" is not "auto" or an ISO 639 code',
    ]);
  });

  test("a synchronous one that overruns the hook timeout is reported and its changes dropped", async () => {
    const f = fake();
    const warnings: string[] = [];
    f.deps.warn = (message) => warnings.push(message);
    f.deps.beforeTranscribe = () => [
      hook("@a/busy", (_input, output) => {
        Bun.sleepSync(250);
        output.engine = "sphinx";
      }),
    ];
    await createTranscriber(f.deps).transcribe({ audio });
    expect(f.engineRequests).toEqual([undefined]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^plugin "@a\/busy" failed in beforeTranscribe: took \d+ ms, over the 200 ms limit$/,
    );
  });

  test("one that hangs is cut off at the hook timeout; what it writes late is ignored", async () => {
    const f = fake();
    const warnings: string[] = [];
    f.deps.warn = (message) => warnings.push(message);
    let aborted = false;
    let late: Promise<void> | undefined;
    f.deps.beforeTranscribe = () => [
      hook("@a/hangs", (input, output) => {
        input.signal.addEventListener("abort", () => {
          aborted = true;
        });
        late = Bun.sleep(400).then(() => {
          output.engine = "sphinx";
          output.consume = true;
          output.text = "too late";
        });
        return late;
      }),
      hook("@a/after", (_input, output) => {
        output.language = "fr";
      }),
    ];
    const result = await createTranscriber(f.deps).transcribe({ audio });
    await late;
    expect(aborted).toBe(true);
    expect(result.raw).toBe("hello");
    expect(f.engineRequests).toEqual([undefined]);
    expect(f.calls[0]?.options.language).toBe("fr");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^plugin "@a\/hangs" failed in beforeTranscribe: .*200 ms/);
  });
});
