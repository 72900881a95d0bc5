import { describe, expect, test } from "bun:test";
import type { HistoryEntry } from "../../../src/dictation/complete.ts";
import type { SpeechEngine } from "../../../src/dictation/engines/types.ts";
import { createLiveSession, type LiveSegment } from "../../../src/dictation/live/session.ts";
import { createScheduler } from "../../../src/dictation/scheduler.ts";
import { createTranscriber } from "../../../src/dictation/transcriber.ts";
import type { VadStream } from "../../../src/dictation/vad/vad.ts";
import { createDictationApi } from "../../../src/plugins/hook-api.ts";
import type { BeforeTranscribeHook, BeforeTranscribeInput } from "../../../src/plugins/hooks-audio.ts";
import { until } from "../../helpers/until.ts";

// The session over the real transcriber and scheduler, with a fake engine and a fake detector:
// a nonzero sample is speech, 0.1 s of zeros is a pause. A word's samples all hold its number
// (0.01 × n), and the engine answers `w<n>`, so each piece's text says which audio it was given.

const rate = 16_000;

/**
 * Speech regions of nonzero samples, closed by 1600 zeros; ms on the stream's timeline. `foresees`:
 * during a pause it tells where the region will end if the pause closes it, as Silero's does.
 */
function fakeVad(foresees = false): VadStream {
  let at = 0;
  let start: number | null = null;
  let zeros = 0;
  const ms = (sample: number) => (sample / rate) * 1000;
  return {
    async push(pcm) {
      const closed = [];
      for (const sample of pcm) {
        if (sample !== 0) {
          start ??= at;
          zeros = 0;
        } else if (start !== null && ++zeros === 1600) {
          closed.push({ startMs: ms(start), endMs: ms(at - 1599) });
          start = null;
        }
        at++;
      }
      return closed;
    },
    async end() {
      const open = start === null ? [] : [{ startMs: ms(start), endMs: ms(at - zeros) }];
      start = null;
      return open;
    },
    open: () =>
      start === null
        ? null
        : {
            startMs: ms(start),
            confirmed: true,
            ...(foresees ? { endsAtMs: zeros > 0 ? ms(at - zeros) : null } : {}),
          },
    horizonMs: () => ms(start ?? at),
    cancel() {},
  };
}

const word = (n: number, seconds = 0.5) => new Float32Array(seconds * rate).fill(n / 100);
const pause = (seconds = 0.2) => new Float32Array(seconds * rate);

function harness(
  options: {
    gate?: Promise<void>;
    fail?: number;
    partials?: boolean;
    model?: string;
    hooks?: BeforeTranscribeHook[];
    /** The first call runs until it is aborted (a guess that would never end on its own). */
    holdFirst?: boolean;
    /** Each call takes this long (engine time the session counts). */
    costMs?: number;
    partialBudget?: number;
    /** The detector tells where a pause under way would end the open region. */
    foresees?: boolean;
  } = {},
) {
  const calls: { samples: number; prompt: string | undefined }[] = [];
  const prompts: (string | undefined)[] = [];
  const models: (string | undefined)[] = [];
  const recorded: HistoryEntry[] = [];
  const postProcessed: string[] = [];
  let aborted = 0;
  const engine: SpeechEngine = {
    id: "sphinx",
    async transcribe(pcm, opts = {}) {
      calls.push({ samples: pcm.length, prompt: opts.prompt });
      if (options.costMs) await Bun.sleep(options.costMs);
      if (options.holdFirst && calls.length === 1) {
        await new Promise((_, reject) =>
          opts.signal?.addEventListener("abort", () => {
            aborted++;
            reject(opts.signal?.reason);
          }),
        );
      }
      if (options.gate) {
        await Promise.race([
          options.gate,
          new Promise((_, reject) =>
            opts.signal?.addEventListener("abort", () => {
              aborted++;
              reject(opts.signal?.reason);
            }),
          ),
        ]);
      }
      const n = Math.round((pcm.find((sample) => sample !== 0) ?? 0) * 100);
      if (n === options.fail) throw new Error("engine broke");
      return { text: `w${n}`, segments: [{ startMs: 0, endMs: 1, text: `w${n}` }], language: "en" };
    },
    close: async () => {},
  };
  const transcriber = createTranscriber({
    decode: async () => {
      throw new Error("not used");
    },
    engine: async (_override, choice = {}) => {
      prompts.push(choice.prompt);
      models.push(choice.model);
      return { engine, id: "sphinx", model: "fake", prompt: choice.prompt, clean: (text) => text };
    },
    scheduler: createScheduler({ maxQueued: 16, concurrency: 1 }),
    postProcess: async ({ text }) => {
      postProcessed.push(text);
      return {
        text: `${text}.`,
        deterministic: text,
        timings: { cleanup: 1, dictionary: 0, plugins: 0 },
        format: null,
        disposition: "deliver",
        reason: null,
        consumedBy: null,
        mode: "paste",
      };
    },
    newDictation: () => createDictationApi(),
    record: (entry) => recorded.push(entry),
    dictionary: (text) => text,
    publish: () => {},
    limits: () => ({
      maxAudioMs: 60_000,
      timeoutMs: 10_000,
      language: "en",
      hookTimeoutMs: 100,
      engine: "sphinx",
      modelOf: () => "base.en",
    }),
    beforeTranscribe: () => options.hooks ?? [],
  });
  const segments: LiveSegment[] = [];
  const errors: unknown[] = [];
  const partials: string[] = [];
  const session = createLiveSession({
    transcriber,
    vad: fakeVad(options.foresees),
    request: { model: options.model, source: "wyoming", appContext: { app: "Wyoming" } },
    onSegment: (segment) => segments.push(segment),
    onError: (error) => errors.push(error),
    onPartial: options.partials ? (text) => partials.push(text) : undefined,
    partialBudget: options.partialBudget,
  });
  return {
    session,
    calls,
    prompts,
    models,
    recorded,
    postProcessed,
    segments,
    errors,
    partials,
    aborted: () => aborted,
  };
}

/** Feeds audio in 100 ms frames, as a client streams it. */
function stream(session: { push(pcm: Float32Array): void }, pcm: Float32Array) {
  for (let at = 0; at < pcm.length; at += rate / 10) session.push(pcm.subarray(at, at + rate / 10));
}

function join(...parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

describe("createLiveSession", () => {
  test("recognises each piece when its pause closes, before stop", async () => {
    const h = harness();
    stream(h.session, join(word(1), pause(), word(2), pause()));
    await Bun.sleep(20);
    expect(h.segments).toEqual([
      { text: "w1", startMs: 0, endMs: 500 },
      { text: "w2", startMs: 700, endMs: 1200 },
    ]);
    expect(h.recorded).toEqual([]);
  });

  test("at stop recognises the tail, runs the pipeline once and records once", async () => {
    const h = harness();
    stream(h.session, join(word(1), pause(), word(2), pause(), word(3)));
    const final = await h.session.stop();
    expect(h.segments.map((s) => s.text)).toEqual(["w1", "w2", "w3"]);
    expect(h.postProcessed).toEqual(["w1 w2 w3"]);
    expect(h.recorded).toHaveLength(1);
    expect(h.recorded[0]).toMatchObject({ raw: "w1 w2 w3", text: "w1 w2 w3.", audioDurationMs: 1900 });
    expect(final).toMatchObject({
      text: "w1 w2 w3.",
      raw: "w1 w2 w3",
      language: "en",
      audioDurationMs: 1900,
      engine: "sphinx",
      model: "fake",
      historyId: 1,
      format: null,
    });
    expect(final.timings.cleanup).toBe(1);
  });

  test("gives the engine exactly each region's audio, with the earlier text as the prompt", async () => {
    const h = harness();
    stream(h.session, join(word(1, 0.3), pause(), word(2, 0.4), pause(), word(3, 0.5)));
    await h.session.stop();
    expect(h.calls.map((c) => c.samples)).toEqual([0.3 * rate, 0.4 * rate, 0.5 * rate]);
    expect(h.prompts).toEqual([undefined, "w1", "w1 w2"]);
  });

  test("a session given a model asks for it for every piece; without one, the setting decides", async () => {
    const named = harness({ model: "small.en" });
    stream(named.session, join(word(1), pause(), word(2)));
    await named.session.stop();
    expect(named.models).toEqual(["small.en", "small.en"]);
    const plain = harness();
    stream(plain.session, word(1));
    await plain.session.stop();
    expect(plain.models).toEqual([undefined]);
  });

  test("answers empty text, recorded nowhere, when no speech arrived", async () => {
    const h = harness();
    stream(h.session, pause(1));
    const final = await h.session.stop();
    expect(h.calls).toEqual([]);
    expect(final).toMatchObject({
      text: "",
      raw: "",
      engine: "sphinx",
      model: "fake",
      audioDurationMs: 1000,
    });
    expect(h.postProcessed).toEqual([]);
    expect(final.historyId).toBeNull();
    expect(h.recorded).toEqual([]);
  });

  test("cancel aborts the running piece, drops the queued ones and records nothing", async () => {
    const gate = Promise.withResolvers<void>();
    const h = harness({ gate: gate.promise });
    stream(h.session, join(word(1), pause(), word(2), pause(), word(3), pause()));
    await Bun.sleep(20);
    expect(h.calls).toHaveLength(1);
    h.session.cancel();
    gate.resolve();
    await Bun.sleep(20);
    expect(h.aborted()).toBe(1);
    expect(h.calls).toHaveLength(1);
    expect(h.segments).toEqual([]);
    expect(h.recorded).toEqual([]);
    expect(h.postProcessed).toEqual([]);
  });

  test("a piece that fails ends the session: onError once, stop rejects, nothing recorded", async () => {
    const h = harness({ fail: 2 });
    stream(h.session, join(word(1), pause(), word(2), pause(), word(3), pause()));
    await Bun.sleep(20);
    expect(h.errors).toHaveLength(1);
    expect(String(h.errors[0])).toContain("engine broke");
    expect(h.segments.map((s) => s.text)).toEqual(["w1"]);
    await expect(h.session.stop()).rejects.toThrow("engine broke");
    await Bun.sleep(10);
    expect(h.recorded).toEqual([]);
  });

  test("audio pushed after stop is ignored and a second stop rejects", async () => {
    const h = harness();
    stream(h.session, word(1));
    const final = h.session.stop();
    h.session.push(word(9));
    expect((await final).raw).toBe("w1");
    await expect(h.session.stop()).rejects.toThrow("already ended");
  });

  test("guesses the open piece once it counts as speech, then once per 500 ms while idle", async () => {
    const h = harness({ partials: true });
    for (let at = 0; at < 12; at++) {
      h.session.push(word(1, 0.1));
      await Bun.sleep(5);
    }
    // 1.2 s of speech with no pause: a guess at 0.3 s (the least worth guessing), then at 0.8 s.
    expect(h.partials).toEqual(["w1", "w1"]);
    expect(h.segments).toEqual([]);
    expect(h.calls.map((c) => c.samples)).toEqual([0.3 * rate, 0.8 * rate]);
    const final = await h.session.stop();
    expect(final.raw).toBe("w1");
    // Guesses are not the dictation: the pipeline and history see the committed text only.
    expect(h.postProcessed).toEqual(["w1"]);
  });

  test("runs beforeTranscribe once per committed piece, on its audio, and never for a guess", async () => {
    const seen: Omit<BeforeTranscribeInput, "signal" | "pcm">[] = [];
    const h = harness({
      partials: true,
      hooks: [
        {
          pluginName: "@fx/seeing",
          run: ({ pcm: _pcm, signal: _signal, ...input }, output) => {
            seen.push(input);
            // A plugin may answer a piece itself: the second word is a command it handles.
            if (seen.length === 2) {
              output.text = "handled";
              output.consume = true;
            }
          },
        },
      ],
    });
    for (let at = 0; at < 12; at++) {
      h.session.push(word(1, 0.1));
      await Bun.sleep(5);
    }
    expect(h.partials.length).toBeGreaterThan(0);
    // Guesses so far, no piece: the hook has seen nothing.
    expect(seen).toEqual([]);
    stream(h.session, join(pause(), word(2), pause()));
    const final = await h.session.stop();
    expect(seen).toEqual([
      {
        sampleRate: rate,
        durationMs: 1200,
        audioDurationMs: 1200,
        language: "en",
        appContext: { app: "Wyoming", appName: "Wyoming" },
        providerId: "sphinx",
        modelId: "base.en",
        source: "wyoming",
      },
      {
        sampleRate: rate,
        durationMs: 500,
        audioDurationMs: 500,
        language: "en",
        appContext: { app: "Wyoming", appName: "Wyoming" },
        providerId: "sphinx",
        modelId: "base.en",
        source: "wyoming",
      },
    ]);
    expect(final.raw).toBe("w1 handled");
    // The engine heard the first piece: it, not the plugin, names the dictation.
    expect(final.model).toBe("fake");
    expect(h.segments.map((segment) => segment.text)).toEqual(["w1", "handled"]);
  });

  test("guesses only the audio after the last committed piece, with the text before it as prompt", async () => {
    const h = harness({ partials: true });
    stream(h.session, join(word(1), pause()));
    await Bun.sleep(20);
    for (let at = 0; at < 6; at++) {
      h.session.push(word(2, 0.1));
      await Bun.sleep(5);
    }
    expect(h.segments.map((s) => s.text)).toEqual(["w1"]);
    expect(h.partials.at(-1)).toBe("w2");
    const last = h.calls.at(-1);
    expect(last?.prompt).toBe("w1");
    // Its audio starts where the committed piece ended (0.5 s), not at the start of the stream
    // (the fake engine names the first word it hears).
    expect(last?.samples).toBeLessThanOrEqual(0.8 * rate);
  });

  test("makes no guess during a pause, however long", async () => {
    const h = harness({ partials: true });
    stream(h.session, join(word(1), pause()));
    await Bun.sleep(20);
    const before = h.calls.length;
    for (let at = 0; at < 20; at++) {
      h.session.push(pause(0.1));
      await Bun.sleep(2);
    }
    expect(h.calls.length).toBe(before);
    await h.session.stop();
  });

  test("holds only the piece being spoken: pauses and committed pieces are forgotten", async () => {
    const h = harness({ partials: true });
    // 30 s of pieces and pauses, then 1 s of a piece still being spoken.
    for (let i = 0; i < 20; i++) stream(h.session, join(word(i + 1, 0.5), pause(1)));
    stream(h.session, word(30, 1));
    await Bun.sleep(50);
    expect(h.session.seconds).toBeCloseTo(31, 1);
    expect(h.session.heldSeconds).toBeLessThanOrEqual(1.01);
    const final = await h.session.stop();
    // Every piece still got its own audio.
    expect(final.raw).toBe([...Array.from({ length: 20 }, (_, i) => `w${i + 1}`), "w30"].join(" "));
  });

  test("makes no guess while the engine is busy with a committed piece", async () => {
    const gate = Promise.withResolvers<void>();
    const h = harness({ gate: gate.promise, partials: true });
    // 0.2 s and its pause close the piece before there is enough audio to guess.
    stream(h.session, join(word(1, 0.2), pause()));
    for (let at = 0; at < 15; at++) {
      h.session.push(word(2, 0.1));
      await Bun.sleep(5);
    }
    expect(h.calls).toHaveLength(1);
    gate.resolve();
    await Bun.sleep(20);
    // No guess was queued behind the committed piece to run after it.
    expect(h.calls).toHaveLength(1);
    expect(h.partials).toEqual([]);
    await h.session.stop();
    expect(h.segments.map((s) => s.text)).toEqual(["w1", "w2"]);
  });

  test("a running guess stops the moment a committed piece needs the engine", async () => {
    const h = harness({ holdFirst: true, partials: true });
    for (let at = 0; at < 4; at++) {
      h.session.push(word(1, 0.1));
      await Bun.sleep(5);
    }
    // The guess at 0.3 s is running and would never end by itself.
    expect(h.calls.map((c) => c.samples)).toEqual([0.3 * rate]);
    h.session.push(pause());
    await until(() => h.segments.length === 1);
    expect(h.aborted()).toBe(1);
    expect(h.segments.map((s) => s.text)).toEqual(["w1"]);
    // The stopped guess says nothing.
    expect(h.partials).toEqual([]);
    expect((await h.session.stop()).raw).toBe("w1");
  });

  test("guesses stay within their budget of engine time per second heard", async () => {
    // 1.2 s of speech, no pause; each call costs 200 ms of engine time. The floor before any piece
    // is 100 ms per second heard: after the guess at 0.3 s, budget 1 allows no other (80 ms at
    // 0.8 s, 120 ms at 1.2 s), where a generous budget guesses again at 0.8 s.
    const guesses = async (partialBudget: number) => {
      const h = harness({ costMs: 200, partials: true, partialBudget });
      for (let at = 0; at < 12; at++) {
        h.session.push(word(1, 0.1));
        await Bun.sleep(5);
        // Let a running guess finish before more audio arrives, as it would at real-time pace.
        await until(() => h.partials.length === h.calls.length);
      }
      const count = h.calls.length;
      await h.session.stop();
      return count;
    };
    expect(await guesses(1)).toBe(1);
    // Budget 3 is 240 ms at 0.8 s: the 200 ms spent is under it, but one more 200 ms guess would
    // take the guesses past it, so none starts.
    expect(await guesses(3)).toBe(1);
    expect(await guesses(1000)).toBe(2);
    expect(await guesses(0)).toBe(0);
  });

  test("recognises a piece while its closing pause is heard, and that is the piece's result", async () => {
    const h = harness({ foresees: true, partials: true, costMs: 20 });
    // 50 ms into the pause: the region would end at 500 ms if the pause goes on.
    h.session.push(join(word(3), pause(0.05)));
    await until(() => h.calls.length === 1);
    expect(h.calls[0]?.samples).toBe(0.5 * rate);
    await until(() => h.partials.length === 1);
    expect(h.segments).toEqual([]);
    h.session.push(pause(0.15));
    await until(() => h.segments.length === 1);
    expect(h.segments).toEqual([{ text: "w3", startMs: 0, endMs: 500 }]);
    const final = await h.session.stop();
    // The engine heard the piece once: the early result is the committed one.
    expect(h.calls).toHaveLength(1);
    expect(h.partials).toEqual(["w3"]);
    expect(final.raw).toBe("w3");
    // Its engine time is the dictation's, not a guess's.
    expect(final.timings.engine).toBeGreaterThanOrEqual(15);
  });

  test("drops the early result when speech resumes before the pause closes the piece", async () => {
    const h = harness({ foresees: true, gate: new Promise(() => {}) });
    h.session.push(join(word(3), pause(0.05)));
    await until(() => h.calls.length === 1);
    // The speaker goes on: the region grows, and what was recognised early no longer is the piece.
    h.session.push(word(4));
    await until(() => h.aborted() === 1);
    const final = h.session.stop();
    await until(() => h.calls.length === 2);
    expect(h.calls[1]?.samples).toBe(1.05 * rate);
    expect(h.segments).toEqual([]);
    h.session.cancel();
    await final.catch(() => {});
  });

  test("a stop during the closing pause takes the early result: the engine runs no second time", async () => {
    const h = harness({ foresees: true, costMs: 30 });
    stream(h.session, join(word(1), pause(), word(2), pause(0.05)));
    // The second piece is being recognised before stop, 50 ms into its pause.
    await until(() => h.calls.length === 2);
    const final = await h.session.stop();
    expect(final.raw).toBe("w1 w2");
    expect(h.calls.map((call) => call.samples)).toEqual([0.5 * rate, 0.5 * rate]);
    expect(h.prompts).toEqual([undefined, "w1"]);
    expect(h.segments.at(-1)).toEqual({ text: "w2", startMs: 700, endMs: 1200 });
  });

  test("recognises nothing early where a beforeTranscribe hook must see each piece", async () => {
    const seen: number[] = [];
    const h = harness({
      foresees: true,
      hooks: [{ pluginName: "@fx/seeing", run: ({ durationMs }) => void seen.push(durationMs) }],
    });
    stream(h.session, join(word(1), pause(0.05)));
    await Bun.sleep(20);
    expect(h.calls).toEqual([]);
    stream(h.session, pause(0.15));
    await h.session.stop();
    expect(seen).toEqual([500]);
    expect(h.calls).toHaveLength(1);
  });
});
