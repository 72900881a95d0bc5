import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import type { PluginEntry } from "../../src/plugins/types.ts";
import { connect, serveDictation, streamFrames, toPcm16 } from "../helpers/dictate-server.ts";
import { llmServer, useLlmServer } from "../helpers/llm-server.ts";
import { type PluginApp, pluginsDirWith, startPluginApp } from "../helpers/plugins.ts";
import { fakeSpeechServer, useSpeechServer } from "../helpers/speech-server.ts";
import { goForward } from "../helpers/sphinx-testdata.ts";

// Each dictation here runs the speech and LLM stand-ins end to end: seconds on a loaded machine.
setDefaultTimeout(30_000);

// A probe written to Freestyle's hook types (fixtures/plugins/fs-probe): every hook it defines
// runs, every member of `api` is there, and each input carries both shapes of its fields.

interface Seen {
  hooks: string[];
  apis: {
    hook: string;
    dictation: number;
    state: string;
    controlMembers: string[];
    signal: boolean;
    llm: {
      providerId: string;
      modelId: string;
      generateText: string;
      specificationVersion: string | null;
    } | null;
  }[];
  inputs: Record<string, Record<string, unknown>>;
  events: { type: string; [key: string]: unknown }[];
  setup: Record<string, unknown> | null;
  config: { received: Record<string, unknown> } | null;
}

const stoppers: { stop(): unknown }[] = [];
afterEach(async () => {
  for (const server of stoppers.splice(0)) await server.stop();
});

/** svc with the probe, the speech stand-in answering `heard`, and the LLM stand-in with cleanup on. */
async function probeApp(entry: PluginEntry = "@fs/probe", heard = "so this is the probe") {
  const app = await startPluginApp({ fixtures: ["fs-probe"], entries: [entry] });
  const speech = fakeSpeechServer(heard);
  const llm = llmServer((request) => {
    const user = request.messages.at(-1)?.content ?? "";
    return /<transcript>/.test(user) ? "So this is the probe." : "ok";
  });
  stoppers.push(speech, llm);
  useSpeechServer(app, speech);
  useLlmServer(app, llm);
  app.services.settings.set("cleanup_mode", "llm");
  return { app, llm };
}

async function transcribe(app: PluginApp) {
  const res = await app.request("/api/transcribe", {
    method: "POST",
    headers: {
      "content-type": "audio/wav",
      "x-app-context": JSON.stringify({ app: "Slack", title: "general", url: "https://slack.test" }),
    },
    body: encodeWav(goForward()),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

const seen = async (app: PluginApp) =>
  (await (await app.request("/api/plugins/fs-probe/seen")).json()) as Seen;

const until = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 50 && !(await check()); i++) await Bun.sleep(20);
};

describe("a probe written to Freestyle's hook types", () => {
  test("sees every hook, in pipeline order, with one api for the whole dictation", async () => {
    const { app } = await probeApp();
    const answer = await transcribe(app);
    expect(answer).toMatchObject({ disposition: "deliver", mode: "paste", text: "So this is the probe" });
    const record = await seen(app);
    expect(record.hooks).toEqual([
      "beforeTranscribe",
      "afterTranscribe",
      "beforeCleanup",
      "afterCleanup",
      "beforeOutput",
    ]);
    for (const api of record.apis) {
      expect(api).toEqual({
        hook: api.hook,
        dictation: 0,
        state: "running",
        controlMembers: ["consume", "abort", "stopPropagation"],
        signal: true,
        reason: null,
        llm: {
          providerId: "openai-compatible",
          modelId: "stand-in",
          generateText: "function",
          specificationVersion: "v3",
        },
      } as never);
    }
    // The next dictation has an api of its own.
    await transcribe(app);
    expect(new Set((await seen(app)).apis.map((api) => api.dictation))).toEqual(new Set([0, 1]));
  });

  test("reads both shapes of every input and output", async () => {
    const { app, llm } = await probeApp();
    await transcribe(app);
    const { inputs } = await seen(app);
    for (const hook of [
      "beforeTranscribe",
      "afterTranscribe",
      "beforeCleanup",
      "afterCleanup",
      "beforeOutput",
    ]) {
      expect(inputs[hook]).toMatchObject({
        appName: "Slack",
        app: "Slack",
        windowTitle: "general",
        title: "general",
        providerId: "remote",
        source: "api",
      });
    }
    // beforeTranscribe: the recording as WAV bytes on request, the PCM kept, the engine named.
    expect(inputs.beforeTranscribe).toMatchObject({
      audio: "RIFF",
      outputProviderId: "remote",
      pcm: true,
      modelId: expect.any(String),
      outputModelId: expect.any(String),
    });
    expect(inputs.beforeTranscribe?.audioBytes).toBe(44 + goForward().length * 2);
    expect(inputs.beforeTranscribe?.audioDurationMs).toBeCloseTo((goForward().length / 16_000) * 1000, 0);
    expect(inputs.afterTranscribe).toMatchObject({ text: "so this is the probe" });
    // beforeCleanup: Freestyle's destination, and system is instructions: the line reaches the LLM.
    expect(inputs.beforeCleanup).toMatchObject({ destination: "overall", sameList: true });
    const system = llm.requests.at(-1)?.messages.find((message) => message.role === "system")?.content;
    expect(system).toContain("PROBE: keep it short.");
    expect(inputs.beforeOutput).toMatchObject({ mode: "paste", outputText: "So this is the probe" });
  });

  test("setup gets directory and read-only settings without secrets; config's defaults reach the options", async () => {
    const { app } = await probeApp(["@fs/probe", { nested: { b: 3 } }]);
    const { setup, config } = await seen(app);
    expect(config).toEqual({ received: { nested: { b: 3 } } });
    expect(setup).toMatchObject({
      name: "@fs/probe",
      mode: "server",
      logger: "function",
      storage: "function",
    });
    expect(String(setup?.directory)).toEndWith("/.data/fs-probe");
    // Settings are read when setup ran: before the test switched the LLM on, cleanup was "basic".
    expect(setup?.cleanupMode).toBe("basic");
    expect(setup?.apiKey).toBeNull();
    expect(setup?.greeting).toBe("hello");
    expect(JSON.parse(String(setup?.nested))).toEqual({ a: 1, b: 3 });
    // The API key is stored, and still reads as unset to a plugin.
    await app.plugins.reload();
    expect((await seen(app)).setup?.apiKey).toBeNull();
    expect((await seen(app)).setup?.cleanupMode).toBe("llm");
  });

  test("its event hook gets Freestyle's event objects, with the text", async () => {
    const { app } = await probeApp();
    await transcribe(app);
    await until(async () => (await seen(app)).events.some((event) => event.type === "outputDelivered"));
    const events = (await seen(app)).events.filter((event) => !event.type.includes("."));
    expect(events).toEqual([
      { type: "transcribed", text: "so this is the probe" },
      { type: "cleaned", before: "so this is the probe", after: "So this is the probe" },
      { type: "outputDelivered" },
    ]);
    // svc's own events come too, under the same field.
    expect((await seen(app)).events.map((event) => event.type)).toContain("transcription.completed");
  });

  test("abort: nothing delivered, the answer says aborted, a pipelineError reaches the plugins and the bus", async () => {
    const { app } = await probeApp(["@fs/probe", { abort: true }]);
    const answer = await transcribe(app);
    expect(answer).toMatchObject({
      text: "",
      disposition: "aborted",
      reason: "probe abort",
      consumedBy: "@fs/probe",
      mode: "none",
      historyId: null,
    });
    // beforeOutput never ran: the dictation ended in afterCleanup.
    expect((await seen(app)).hooks).not.toContain("beforeOutput");
    await until(async () => (await seen(app)).events.some((event) => event.type === "pipelineError"));
    expect((await seen(app)).events).toContainEqual({
      type: "pipelineError",
      stage: "transform",
      message: "probe abort",
    });
    expect(app.events).toContainEqual(
      expect.objectContaining({ type: "pipeline.error", stage: "transform", plugin: "@fs/probe" }),
    );
    // Text sent to /api/post-process is aborted alike, and reported alike.
    const before = app.events.filter((event) => event.type === "pipeline.error").length;
    const post = await app.json("/api/post-process", "POST", { text: "hello there" });
    expect(await post.json()).toMatchObject({ text: "", disposition: "aborted", reason: "probe abort" });
    expect(app.events.filter((event) => event.type === "pipeline.error")).toHaveLength(before + 1);
    const errors = (await seen(app)).events.filter((event) => event.type === "pipelineError");
    expect(errors).toHaveLength(2);
  });

  test("beforeOutput's mode none suppresses the dictation, and every answer reports the mode", async () => {
    const { app } = await probeApp(["@fs/probe", { mode: "none" }]);
    const answer = await transcribe(app);
    expect(answer).toMatchObject({
      text: "",
      disposition: "suppressed",
      reason: "output mode none",
      consumedBy: "@fs/probe",
      mode: "none",
      historyId: null,
    });
    const clipboard = await probeApp(["@fs/probe", { mode: "clipboard" }]);
    const copied = await transcribe(clipboard.app);
    expect(copied).toMatchObject({
      disposition: "deliver",
      mode: "clipboard",
      text: "So this is the probe",
    });
    const post = await clipboard.app.json("/api/post-process", "POST", { text: "hello there" });
    expect(await post.json()).toMatchObject({ disposition: "deliver", mode: "clipboard" });
  });

  test("a live dictation is one dictation: one api for every piece and the text hooks, and recording events", async () => {
    const server = serveDictation({ pluginsDir: pluginsDirWith("fs-probe") });
    stoppers.push(server);
    server.app.services.settings.set("plugins", ["@fs/probe"]);
    await server.app.plugins.start();
    const speech = fakeSpeechServer("go forward");
    stoppers.push(speech);
    useSpeechServer(server.app, speech);
    const client = connect(server.url);
    await client.opened;
    client.json({ type: "start", format: "pcm16", sampleRate: 16_000, appContext: { app: "Notes" } });
    await client.next("ready");
    // Two stretches of speech with a pause between: two pieces (at about 3× real time, within the pace).
    for (const part of [goForward(), new Float32Array(16_000), goForward(), new Float32Array(16_000)])
      await streamFrames(client, toPcm16(part), 3200, 35);
    client.json({ type: "stop" });
    const final = await client.next("final");
    expect(final).toMatchObject({ disposition: "deliver", mode: "paste" });
    const record = (await (await server.app.request("/api/plugins/fs-probe/seen")).json()) as Seen;
    const pieces = record.hooks.filter((hook) => hook === "beforeTranscribe").length;
    expect(pieces).toBeGreaterThanOrEqual(2);
    expect(record.hooks.slice(pieces)).toEqual(["afterTranscribe", "afterCleanup", "beforeOutput"]);
    expect(new Set(record.apis.map((api) => api.dictation))).toEqual(new Set([0]));
    expect(record.inputs.afterTranscribe).toMatchObject({ source: "live", appName: "Notes", app: "Notes" });
    const types = record.events.map((event) => event.type);
    expect(types.indexOf("recordingStarted")).toBeLessThan(types.indexOf("recordingCommitted"));
    expect(types.indexOf("recordingCommitted")).toBeLessThan(types.indexOf("transcribed"));
  }, 30_000);
});
