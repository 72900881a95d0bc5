import { describe, expect, test } from "bun:test";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { createTextPipeline } from "../../src/dictation/text/pipeline.ts";
import { harness } from "../helpers/pipeline.ts";
import { type PluginApp, startPluginApp } from "../helpers/plugins.ts";
import { fakeSpeechServer, useSpeechServer } from "../helpers/speech-server.ts";
import { goForward } from "../helpers/sphinx-testdata.ts";

function pipelineOf(app: PluginApp, warnings: string[] = []) {
  const h = harness({ dictionary: [{ id: 1, key: "svc", value: "SVC" }], hooks: () => app.plugins.hooks() });
  h.deps.logger = { warn: (message) => warnings.push(message) };
  return createTextPipeline(h.deps);
}

describe("plugin afterCleanup hooks in the text pipeline", () => {
  test("run after cleanup and the dictionary, in plugins order", async () => {
    const app = await startPluginApp({
      fixtures: ["fx-transform", "fx-mutate"],
      entries: [["@fx/transform", { suffix: " teh end" }], "@fx/mutate"],
    });
    const result = await pipelineOf(app).run({ text: "um I like svc", appContext: { app: "Notes" } });
    expect(result.stages.dictionary.text).toBe("I like SVC");
    expect(result.text).toBe("I like SVC the end (in Notes)");
  });

  test("a hook that hangs is cut off by the guarded runner; the chain goes on with the last good text", async () => {
    const app = await startPluginApp({
      fixtures: ["fx-hangs", "fx-transform"],
      entries: ["@fx/hangs", ["@fx/transform", { suffix: "!" }]],
    });
    const warnings: string[] = [];
    const started = performance.now();
    const result = await pipelineOf(app, warnings).run({ text: "hello there" });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(result.text).toBe("Hello there!");
    expect(result.stages.plugins.errors).toEqual([
      {
        plugin: "@fx/hangs",
        hook: "afterCleanup",
        message: 'plugin "@fx/hangs" failed in afterCleanup: timed out after 200 ms',
      },
    ]);
    expect(warnings).toContain('plugin "@fx/hangs" failed in afterCleanup: timed out after 200 ms');
  });

  test("a plugin whose setup failed contributes no hook", async () => {
    const app = await startPluginApp({ fixtures: ["fx-throws-setup"], entries: ["@fx/throws-setup"] });
    expect((await pipelineOf(app).run({ text: "fine" })).text).toBe("Fine");
  });
});

describe("the hooks before afterCleanup", () => {
  const post = async (app: PluginApp, text: string) =>
    (await (await app.json("/api/post-process", "POST", { text })).json()) as {
      text: string;
      raw: string;
      consumedBy: string | null;
      finalBy: string | null;
      disposition: string;
      stages: { cleanup: { text: string }; plugins: { errors: { plugin: string; hook: string }[] } };
    };

  test('enforce orders every hook: "pre" first, "post" last, whatever the plugins order', async () => {
    const app = await startPluginApp({
      fixtures: ["fx-hook-post", "fx-transform", "fx-hook-pre"],
      entries: ["@fx/hook-post", ["@fx/transform", { suffix: " [plain]" }], "@fx/hook-pre"],
    });
    const result = await post(app, "hello");
    // afterTranscribe edits the raw transcript before cleanup; afterCleanup runs pre, plain, post.
    expect(result.stages.cleanup.text).toBe("Hello (pre-raw)");
    expect(result.text).toBe("Hello (pre-raw) [pre] [plain] [post]");
    expect((await app.status("@fx/hook-post"))?.hooks).toEqual(["beforeCleanup", "afterCleanup", "event"]);
  });

  test("afterTranscribe can make its text final (consume, final's old name): no cleanup or later hooks, still delivered", async () => {
    const app = await startPluginApp({
      fixtures: ["fx-hook-command", "fx-transform"],
      entries: ["@fx/hook-command", ["@fx/transform", { suffix: " [after]" }]],
    });
    const command = await post(app, "command lights on");
    expect(command).toMatchObject({
      text: "✓ lights on",
      finalBy: "@fx/hook-command",
      disposition: "deliver",
      consumedBy: null,
    });
    const prose = await post(app, "um hello there");
    expect(prose).toMatchObject({ text: "Hello there [after]", finalBy: null, disposition: "deliver" });
  });

  test("beforeCleanup adds instructions to the LLM pass, or skips it", async () => {
    const requests: { messages: { role: string; content: string }[] }[] = [];
    const llm = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        const body = (await request.json()) as { messages: { role: string; content: string }[] };
        requests.push(body);
        return Response.json({
          choices: [
            { index: 0, message: { role: "assistant", content: "Rewritten." }, finish_reason: "stop" },
          ],
        });
      },
    });
    try {
      const app = await startPluginApp({ fixtures: ["fx-hook-post"], entries: ["@fx/hook-post"] });
      app.services.settings.set("cleanup_mode", "llm");
      app.services.settings.set("llm_base_url", `http://127.0.0.1:${llm.port}/v1`);
      app.services.settings.set("llm_model", "test");
      const rewritten = await post(app, "we sold twelve units");
      expect(requests).toHaveLength(1);
      expect(JSON.stringify(requests[0]?.messages)).toContain("Write numbers as digits.");
      expect(rewritten.stages.cleanup.text).toBe("Rewritten.");
      const skipped = await post(app, "no llm for this one");
      expect(requests).toHaveLength(1);
      expect(skipped.stages.cleanup.text).toMatch(/^No llm for this one\.?$/i);
    } finally {
      llm.stop(true);
    }
  });

  test("event hooks observe the server events; one that fails is logged and harms no one", async () => {
    const app = await startPluginApp({
      fixtures: ["fx-hook-pre", "fx-hook-post"],
      entries: ["@fx/hook-pre", "@fx/hook-post"],
    });
    expect((await app.json("/api/dictionary", "POST", { key: "brb", value: "be right back" })).status).toBe(
      201,
    );
    expect((await app.json("/api/vocabulary", "POST", { term: "Zanzibar" })).status).toBe(201);
    await Bun.sleep(10);
    const seen = (await (await app.request("/api/plugins/fx-hook-post/seen")).json()) as { seen: string[] };
    expect(seen.seen).toContain("dictionary.changed");
    expect(seen.seen).toContain("vocabulary.changed");
    const failures = app.logs.filter((line) => line.hook === "event").map((line) => line.msg);
    expect(failures).toContain('plugin "@fx/hook-pre" failed in event: thrown in event');
    expect(failures).toContain('plugin "@fx/hook-pre" failed in event: rejected in event');
  });
});

describe("beforeTranscribe in the real dictation path", () => {
  test("a plugin answers a dictation from its audio hook; others reach the engine", async () => {
    const app = await startPluginApp({ fixtures: ["fx-hook-command"], entries: ["@fx/hook-command"] });
    app.services.settings.set("stt_engine", "sphinx");
    const wav = encodeWav(goForward());
    const send = async (context: string) =>
      (await (
        await app.request("/api/transcribe", {
          method: "POST",
          headers: { "content-type": "audio/wav", "x-app-context": context },
          body: wav,
        })
      ).json()) as { raw: string; model: string };
    expect(await send("Doorbell")).toMatchObject({
      raw: "ding dong after 3 s",
      model: "plugin:@fx/hook-command",
    });
    expect((await send("Notes")).raw).toContain("forward");
  });
});

describe("beforeTranscribe picks the model and the vocabulary for one dictation", () => {
  test("the vocabulary reaches the engine's prompt; the model replaces stt_model", async () => {
    const prompts: string[] = [];
    const upstream = fakeSpeechServer(async (request) => {
      prompts.push(String((await request.formData()).get("prompt") ?? ""));
      return "hello";
    });
    try {
      const app = await startPluginApp({ fixtures: ["fx-hook-bias"], entries: ["@fx/hook-bias"] });
      useSpeechServer(app, upstream);
      app.services.vocabulary.create({ term: "Kubernetes" });
      const wav = encodeWav(goForward());
      const send = (context: string) =>
        app.request("/api/transcribe", {
          method: "POST",
          headers: { "content-type": "audio/wav", "x-app-context": context },
          body: wav,
        });
      expect((await send("Atlas")).status).toBe(200);
      expect((await send("Notes")).status).toBe(200);
      expect(prompts[0]).toContain("Zanzibar");
      expect(prompts[0]).not.toContain("Kubernetes");
      expect(prompts[1]).toContain("Kubernetes");
      // whisper with the plugin's model: that model is the one looked for (none is installed here).
      app.services.settings.set("stt_engine", "whisper");
      const refused = await send("Atlas");
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('"tiny.en"');
    } finally {
      upstream.stop();
    }
  });
});
