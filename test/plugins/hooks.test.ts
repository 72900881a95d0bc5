import { describe, expect, test } from "bun:test";
import { createDictationApi } from "../../src/plugins/hook-api.ts";
import {
  type AfterCleanupHook,
  type HookInput,
  runBeforeCleanup,
  runHooks,
  transformHook,
} from "../../src/plugins/hooks.ts";

const input = {
  text: "hello world",
  raw: "um hello world",
  appContext: { app: "Slack" },
  language: "en",
  source: "api" as const,
  providerId: "whisper",
  modelId: "base.en",
};

/** A fresh dictation's `api`, as each run of the pipeline gets one. */
const dictation = () => createDictationApi();

const hook = (pluginName: string, run: AfterCleanupHook["run"]): AfterCleanupHook => ({ pluginName, run });
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe("runHooks", () => {
  test("runs hooks in order, each on the previous hook's text", async () => {
    const seen: string[] = [];
    const result = await runHooks(
      [
        hook("upper", (_, output) => {
          seen.push(output.text);
          output.text = output.text.toUpperCase();
        }),
        hook("exclaim", (_, output) => {
          seen.push(output.text);
          output.text += "!";
        }),
      ],
      input,
      input.text,
      { timeoutMs: 100, dictation: dictation() },
    );
    expect(seen).toEqual(["hello world", "HELLO WORLD"]);
    expect(result.text).toBe("HELLO WORLD!");
    expect(result.errors).toEqual([]);
    expect(result.timings.map((timing) => timing.plugin)).toEqual(["upper", "exclaim"]);
    for (const timing of result.timings) expect(timing.ms).toBeGreaterThanOrEqual(0);
  });

  test("gives every hook the stage input with raw text, app context and language", async () => {
    let received: HookInput | undefined;
    await runHooks(
      [
        hook("spy", (hookInput) => {
          received = hookInput;
        }),
      ],
      input,
      input.text,
      { timeoutMs: 100, dictation: dictation() },
    );
    expect(received).toMatchObject({
      text: "hello world",
      raw: "um hello world",
      appContext: { app: "Slack" },
    });
    expect(received?.language).toBe("en");
    expect(received?.signal.aborted).toBe(false);
    expect(Object.isFrozen(received)).toBe(true);
  });

  test("a throwing hook is reported with its plugin's name and the chain continues", async () => {
    const result = await runHooks(
      [
        hook("breaks", (_, output) => {
          output.text = "half-written";
          throw new Error("boom");
        }),
        hook("suffix", (_, output) => {
          output.text += " ok";
        }),
      ],
      input,
      input.text,
      { timeoutMs: 100, dictation: dictation() },
    );
    expect(result.text).toBe("hello world ok");
    expect(result.errors).toEqual([
      { plugin: "breaks", hook: "afterCleanup", message: 'plugin "breaks" failed in afterCleanup: boom' },
    ]);
  });

  test("a rejected promise and a thrown non-Error are reported too", async () => {
    const result = await runHooks(
      [
        hook("rejects", async () => {
          throw new TypeError("bad input");
        }),
        hook("throws-string", () => {
          throw "plain string";
        }),
      ],
      input,
      input.text,
      { timeoutMs: 100, dictation: dictation() },
    );
    expect(result.text).toBe("hello world");
    expect(result.errors.map((error) => error.message)).toEqual([
      'plugin "rejects" failed in afterCleanup: bad input',
      'plugin "throws-string" failed in afterCleanup: plain string',
    ]);
  });

  test("a hanging hook times out, the chain continues and its late write is discarded", async () => {
    let lateOutput: { text: string } | undefined;
    let signal: AbortSignal | undefined;
    const started = performance.now();
    const result = await runHooks(
      [
        hook("hangs", async (hookInput, output) => {
          signal = hookInput.signal;
          lateOutput = output;
          await sleep(150);
          output.text = "LATE";
        }),
        hook("suffix", (_, output) => {
          output.text += " next";
        }),
      ],
      input,
      input.text,
      { timeoutMs: 30, dictation: dictation() },
    );
    expect(performance.now() - started).toBeLessThan(140);
    expect(result.text).toBe("hello world next");
    expect(result.errors).toEqual([
      {
        plugin: "hangs",
        hook: "afterCleanup",
        message: 'plugin "hangs" failed in afterCleanup: timed out after 30 ms',
      },
    ]);
    expect(signal?.aborted).toBe(true);
    await sleep(160);
    // The straggler did write, but only to its private output object.
    expect(lateOutput?.text).toBe("LATE");
    expect(result.text).toBe("hello world next");
  });

  test("an async hook that sets output.text after awaiting is honoured", async () => {
    const result = await runHooks(
      [
        hook("slow-but-fine", async (_, output) => {
          await sleep(5);
          output.text = "rewritten";
        }),
      ],
      input,
      input.text,
      { timeoutMs: 200, dictation: dictation() },
    );
    expect(result).toMatchObject({ text: "rewritten", errors: [] });
  });

  test("input.text is the text entering each hook, the previous hooks' work included", async () => {
    const seen: string[] = [];
    const result = await runHooks(
      [
        hook("upper", (hookInput, output) => {
          seen.push(hookInput.text);
          output.text = hookInput.text.toUpperCase();
        }),
        hook("exclaim", (hookInput, output) => {
          seen.push(hookInput.text);
          output.text = `${hookInput.text}!`;
        }),
      ],
      input,
      input.text,
      { timeoutMs: 100, dictation: dictation() },
    );
    expect(seen).toEqual(["hello world", "HELLO WORLD"]);
    expect(result.text).toBe("HELLO WORLD!");
  });

  test("a synchronous hook that overruns the timeout is reported and its text dropped", async () => {
    const result = await runHooks(
      [
        hook("busy", (_, output) => {
          const until = performance.now() + 80;
          while (performance.now() < until) {}
          output.text = "late";
        }),
        hook("next", (_, output) => {
          output.text += "?";
        }),
      ],
      input,
      input.text,
      { timeoutMs: 30, dictation: dictation() },
    );
    expect(result.text).toBe("hello world?");
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]?.message).toMatch(
      /^plugin "busy" failed in afterCleanup: took \d+ ms, over the 30 ms limit$/,
    );
  });

  test("a hook that leaves a non-string in output.text is rejected and its text ignored", async () => {
    const result = await runHooks(
      [
        hook("numbers", (_, output) => {
          Reflect.set(output, "text", 42);
        }),
      ],
      input,
      input.text,
      { timeoutMs: 100, dictation: dictation() },
    );
    expect(result.text).toBe("hello world");
    expect(result.errors[0]?.message).toBe(
      'plugin "numbers" failed in afterCleanup: output.text must be a string, got number',
    );
  });

  test("a hook cannot change the input the next hook sees", async () => {
    let secondSaw: string | undefined;
    await runHooks(
      [
        hook("tamper", (hookInput) => {
          Reflect.set(hookInput, "raw", "tampered");
        }),
        hook("reader", (hookInput) => {
          secondSaw = hookInput.raw;
        }),
      ],
      input,
      input.text,
      { timeoutMs: 100, dictation: dictation() },
    );
    expect(secondSaw).toBe("um hello world");
  });

  test("no hooks leave the text as it came", async () => {
    expect(await runHooks([], input, "as is", { timeoutMs: 10, dictation: dictation() })).toEqual({
      text: "as is",
      errors: [],
      timings: [],
      finalBy: null,
    });
  });
});

describe("transformHook", () => {
  test("wraps sync and async text functions into hooks", async () => {
    const result = await runHooks(
      [
        hook(
          "sync",
          transformHook((text) => text.replace("world", "there")),
        ),
        hook(
          "async",
          transformHook(async (text, hookInput) => {
            await sleep(2);
            return `${text} (${hookInput.language})`;
          }),
        ),
      ],
      input,
      input.text,
      { timeoutMs: 100, dictation: dictation() },
    );
    expect(result).toMatchObject({ text: "hello there (en)", errors: [] });
  });

  test("a transform that throws falls back like any hook", async () => {
    const result = await runHooks(
      [
        hook(
          "bad-transform",
          transformHook(() => {
            throw new Error("nope");
          }),
        ),
      ],
      input,
      input.text,
      { timeoutMs: 100, dictation: dictation() },
    );
    expect(result.text).toBe("hello world");
    expect(result.errors[0]?.message).toBe('plugin "bad-transform" failed in afterCleanup: nope');
  });
});

describe("runHooks for afterTranscribe, and runBeforeCleanup", () => {
  const hook = (pluginName: string, run: AfterCleanupHook["run"]): AfterCleanupHook => ({ pluginName, run });

  test("a hook that makes its text final stops the chain (`consume` is final's old name); a failing one is reported under its hook's name", async () => {
    const result = await runHooks(
      [
        hook("@a/fails", () => {
          throw new Error("nope");
        }),
        hook("@a/consumes", (_input, output) => {
          Object.assign(output, { text: "done", consume: true });
        }),
        hook("@a/never", (_input, output) => {
          output.text = "not reached";
        }),
      ],
      input,
      "raw",
      { timeoutMs: 100, hook: "afterTranscribe", dictation: dictation() },
    );
    expect(result.text).toBe("done");
    expect(result.finalBy).toBe("@a/consumes");
    expect(result.errors.map((error) => error.message)).toEqual([
      'plugin "@a/fails" failed in afterTranscribe: nope',
    ]);
    expect(result.timings.map((timing) => timing.plugin)).toEqual(["@a/fails", "@a/consumes"]);
  });

  test("final means nothing to afterCleanup: the chain goes on", async () => {
    const result = await runHooks(
      [
        hook("@a/consumes", (_input, output) => {
          Object.assign(output, { text: "x", consume: true });
        }),
        hook("@a/after", (_input, output) => {
          output.text += "y";
        }),
      ],
      input,
      "raw",
      { timeoutMs: 100, dictation: dictation() },
    );
    expect(result).toMatchObject({ text: "xy", finalBy: null });
  });

  test("beforeCleanup hooks add instructions in order; a bad one is reported and dropped", async () => {
    const result = await runBeforeCleanup(
      [
        { pluginName: "@a/one", run: (_input, output) => void output.instructions.push("first") },
        {
          pluginName: "@a/bad",
          run: (_input, output) => {
            (output as { instructions: unknown }).instructions = "not a list";
          },
        },
        { pluginName: "@a/two", run: (_input, output) => void output.instructions.push("second") },
      ],
      { ...input, destination: "overall" },
      { timeoutMs: 100, dictation: dictation() },
    );
    expect(result.instructions).toEqual(["first", "second"]);
    expect(result.skipLlm).toBe(false);
    expect(result.errors.map((error) => error.hook)).toEqual(["beforeCleanup"]);
  });
});
