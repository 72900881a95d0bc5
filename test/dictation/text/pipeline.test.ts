import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTextPipeline, type MatchedFormat } from "../../../src/dictation/text/pipeline.ts";
import { defaultFormatStyle } from "../../../src/formats/style.ts";
import type { AfterCleanupHook } from "../../../src/plugins/hooks.ts";
import { harness } from "../../helpers/pipeline.ts";

const hook = (pluginName: string, run: AfterCleanupHook["run"]): AfterCleanupHook => ({ pluginName, run });

describe("createTextPipeline: stage order", () => {
  test("runs cleanup, then the dictionary, then hooks", async () => {
    const seenByHook: string[] = [];
    const h = harness({
      dictionary: [
        { id: 1, key: "kubernetes", value: "Kubernetes" },
        // Spoken punctuation is gone before the dictionary runs, so this key can never fire.
        { id: 2, key: "period", value: "PERIOD" },
      ],
      hooks: [
        hook("tag", (input, output) => {
          seenByHook.push(input.text, output.text);
          output.text = `${output.text} #k8s`;
        }),
      ],
    });
    const result = await createTextPipeline(h.deps).run({ text: " um th-th-this is kubernetes period" });
    expect(result.raw).toBe(" um th-th-this is kubernetes period");
    expect(result.deterministic).toBe("This is kubernetes.");
    expect(result.stages.cleanup).toEqual({ mode: "basic", text: "This is kubernetes." });
    expect(result.stages.dictionary).toEqual({ text: "This is Kubernetes.", replacements: 1 });
    expect(seenByHook).toEqual(["This is Kubernetes.", "This is Kubernetes."]);
    expect(result.stages.plugins).toEqual({ text: "This is Kubernetes. #k8s", errors: [] });
    expect(result.text).toBe("This is Kubernetes. #k8s");
    expect(h.usage).toEqual([new Map([[1, 1]])]);
  });

  test("reports per-stage timings in milliseconds", async () => {
    const h = harness({
      hooks: [
        hook("slow", async () => {
          await Bun.sleep(25);
        }),
      ],
    });
    const { timings } = await createTextPipeline(h.deps).run({ text: "hello there" });
    expect(timings.plugins).toBeGreaterThanOrEqual(20);
    expect(timings.cleanup).toBeGreaterThanOrEqual(0);
    expect(timings.dictionary).toBeGreaterThanOrEqual(0);
    expect(timings.total).toBeGreaterThanOrEqual(
      timings.cleanup + timings.dictionary + timings.plugins - 0.01,
    );
    expect(timings.total).toBeLessThan(1000);
  });

  test("afterTranscribe hooks count as plugin time, not cleanup", async () => {
    const h = harness({ config: { hookTimeoutMs: 2000 } });
    h.deps.getTranscriptHooks = () => ({
      afterTranscribe: [
        hook("slow-command", async () => {
          await Bun.sleep(150);
        }),
      ],
      beforeCleanup: [],
    });
    const { timings } = await createTextPipeline(h.deps).run({ text: "hello there" });
    expect(timings.plugins).toBeGreaterThanOrEqual(140);
    expect(timings.cleanup).toBeLessThan(140);
  });

  test("a transcript an afterTranscribe hook makes final is not matched against the formats", async () => {
    const h = harness();
    h.deps.getTranscriptHooks = () => ({
      afterTranscribe: [
        hook("command", (_input, output) => {
          output.text = "\n\n";
          (output as { final?: boolean }).final = true;
        }),
      ],
      beforeCleanup: [],
    });
    const result = await createTextPipeline(h.deps).run({
      text: "new paragraph",
      appContext: { app: "Notes" },
    });
    expect(result).toMatchObject({ text: "\n\n", finalBy: "command", consumedBy: null, format: null });
    expect(h.formatQueries).toEqual([]);
  });
});

describe("createTextPipeline: formats and modes", () => {
  test("the matched format's style shapes cleanup and is reported", async () => {
    const format: MatchedFormat = {
      id: 4,
      label: "Terminal",
      instructions: "Shell commands.",
      style: { ...defaultFormatStyle, capitalize: false, spokenPunctuation: false, endPunctuation: "strip" },
    };
    const h = harness({ format });
    const appContext = { app: "iTerm2" };
    const result = await createTextPipeline(h.deps).run({ text: "um git status period.", appContext });
    expect(result.text).toBe("git status period");
    expect(result.format).toEqual({ id: 4, label: "Terminal" });
    expect(h.formatQueries).toEqual([appContext]);
  });

  test("cleanup off passes text through trimmed, and the dictionary and hooks still run", async () => {
    const h = harness({
      config: { cleanupMode: "off" },
      dictionary: [{ id: 3, key: "um", value: "UM" }],
      hooks: [
        hook("suffix", (_, output) => {
          output.text += "!";
        }),
      ],
    });
    const result = await createTextPipeline(h.deps).run({ text: "  um i I think  " });
    expect(result.deterministic).toBe("um i I think");
    expect(result.stages.cleanup).toEqual({ mode: "off", text: "um i I think" });
    expect(result.text).toBe("UM i I think!");
  });

  test("extra fillers and the language reach cleanup", async () => {
    const h = harness({ config: { extraFillers: ["you know"] } });
    const pipeline = createTextPipeline(h.deps);
    expect((await pipeline.run({ text: "you know it works" })).text).toBe("It works");
    expect((await pipeline.run({ text: "er ist da", language: "de" })).text).toBe("Er ist da");
  });
});

describe("createTextPipeline: empty results", () => {
  test("blank text returns empty text at once without format, dictionary or hooks", async () => {
    const h = harness({ hooks: [hook("never", () => undefined)] });
    const result = await createTextPipeline(h.deps).run({ text: " \n\t " });
    expect(result.text).toBe("");
    expect(result.format).toBeNull();
    expect(h.calls).toEqual(["getConfig"]);
  });

  test("a transcript of only fillers becomes empty text and hooks do not run", async () => {
    let hookRan = false;
    const h = harness({
      hooks: [
        hook("would-add", (_, output) => {
          hookRan = true;
          output.text = "invented";
        }),
      ],
    });
    const result = await createTextPipeline(h.deps).run({ text: "Um... uh. [BLANK_AUDIO]" });
    expect(result.text).toBe("");
    expect(hookRan).toBe(false);
    expect(h.usage).toEqual([]);
  });
});

describe("createTextPipeline: failures never break a dictation", () => {
  test("records usage only when something matched, and survives a failing write", async () => {
    const dictionary = [{ id: 5, key: "acme", value: "ACME" }];
    const quiet = harness({ dictionary });
    await createTextPipeline(quiet.deps).run({ text: "nothing here" });
    expect(quiet.usage).toEqual([]);

    const failing = harness({ dictionary, recordFails: true });
    const result = await createTextPipeline(failing.deps).run({ text: "acme and acme" });
    expect(result.text).toBe("ACME and ACME");
    expect(result.stages.dictionary.replacements).toBe(2);
    expect(failing.warnings.map((w) => w.message)).toEqual(["could not record dictionary usage"]);
  });

  test("hook errors are returned and logged with the plugin's name", async () => {
    const h = harness({
      hooks: [
        hook("broken", () => {
          throw new Error("kaput");
        }),
      ],
    });
    const result = await createTextPipeline(h.deps).run({ text: "hello" });
    expect(result.text).toBe("Hello");
    expect(result.stages.plugins.errors).toEqual([
      { plugin: "broken", hook: "afterCleanup", message: 'plugin "broken" failed in afterCleanup: kaput' },
    ]);
    expect(h.warnings[0]?.message).toBe('plugin "broken" failed in afterCleanup: kaput');
  });
});

describe("createTextPipeline: LLM cleanup", () => {
  let reply: () => Response = () => Response.json({});
  const bodies: { messages: { role: string; content: string }[] }[] = [];
  let server: ReturnType<typeof Bun.serve>;
  const completion = (content: string) => Response.json({ choices: [{ message: { content } }] });
  const llmConfig = () => ({
    cleanupMode: "llm" as const,
    llm: { baseUrl: `http://127.0.0.1:${server.port}/v1`, model: "m", apiKey: null, timeoutMs: 1000 },
  });

  beforeAll(() => {
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        bodies.push((await request.json()) as (typeof bodies)[number]);
        return reply();
      },
    });
  });
  afterAll(() => server.stop(true));

  test("uses the LLM's edit, keeps the deterministic text, and re-applies the format's end mark", async () => {
    reply = () => completion("Let's meet at six.");
    const format: MatchedFormat = {
      id: 2,
      label: "Chat",
      instructions: "Casual chat.",
      style: { ...defaultFormatStyle, endPunctuation: "strip" },
    };
    const h = harness({
      config: llmConfig(),
      format,
      vocabulary: ["Kubernetes"],
      dictionary: [{ id: 1, key: "six", value: "6" }],
    });
    const result = await createTextPipeline(h.deps).run({ text: "um let's meet at five no six" });
    expect(result.deterministic).toBe("Let's meet at five no six");
    expect(result.stages.cleanup).toEqual({ mode: "llm", text: "Let's meet at six" });
    expect(result.text).toBe("Let's meet at 6");
    const system = bodies.at(-1)?.messages[0]?.content ?? "";
    expect(system).toContain("Casual chat.");
    expect(system).toContain("Kubernetes");
  });

  test("falls back to the deterministic text with the reason when the endpoint fails", async () => {
    reply = () => new Response("overloaded", { status: 503 });
    const h = harness({ config: llmConfig() });
    const result = await createTextPipeline(h.deps).run({ text: "um hello there" });
    expect(result.text).toBe("Hello there");
    expect(result.stages.cleanup).toEqual({
      mode: "llm",
      text: "Hello there",
      fallback: { reason: "http_error", detail: "HTTP 503: overloaded" },
    });
    expect(h.warnings[0]?.fields).toEqual({ reason: "http_error", detail: "HTTP 503: overloaded" });
  });

  test("falls back when the LLM answers the dictated question", async () => {
    reply = () => completion("It is 4 pm.");
    const h = harness({ config: llmConfig() });
    const result = await createTextPipeline(h.deps).run({ text: "what time is it" });
    expect(result.text).toBe("What time is it");
    expect(result.stages.cleanup.fallback?.reason).toBe("rejected_answer");
  });

  test("falls back as not_configured when llm mode has no endpoint", async () => {
    const h = harness({ config: { cleanupMode: "llm", llm: null } });
    const result = await createTextPipeline(h.deps).run({ text: "hello there" });
    expect(result.text).toBe("Hello there");
    expect(result.stages.cleanup.fallback?.reason).toBe("not_configured");
  });

  test("does not call the LLM when cleanup left nothing", async () => {
    const before = bodies.length;
    const h = harness({ config: llmConfig() });
    const result = await createTextPipeline(h.deps).run({ text: "um uh" });
    expect(result.text).toBe("");
    expect(bodies.length).toBe(before);
  });
});
