import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { packPackage } from "../../src/plugins/pack.ts";
import { connect, serveDictation, streamFrames, toPcm16 } from "../helpers/dictate-server.ts";
import { type LlmServer, llmServer, useLlmServer } from "../helpers/llm-server.ts";
import { fixturesDir, type PluginApp, pluginsDirWith, startPluginApp } from "../helpers/plugins.ts";
import { fakeSpeechServer, type SpeechServer, useSpeechServer } from "../helpers/speech-server.ts";
import { goForward } from "../helpers/sphinx-testdata.ts";
import { connectWyoming, serveWyoming, streamChunks } from "../helpers/wyoming.ts";

// Each dictation here runs the speech and LLM stand-ins end to end: seconds on a loaded machine.
setDefaultTimeout(30_000);

// Plugins written here in the exact shape of Freestyle's published ones (a `freestyle` manifest
// key, the `freestyle-voice` SDK imported and listed as a dependency, hooks using api.control and
// api.llm), installed as they are, from a tarball and from a folder, each doing its job.

const shapes = [
  ["fs-word-filter", "@fs/word-filter", "Sparkles"],
  ["fs-emoji", "@fs/emoji", "Smile"],
  ["fs-audio-transcription", "@fs/audio-transcription", "FileMusic"],
  ["fs-voice-commands", "@fs/voice-commands", "Zap"],
] as const;

type Shape = (typeof shapes)[number];

/** A fixture folder as `npm pack` would pack it. */
async function tarballOf(folder: string): Promise<Uint8Array<ArrayBuffer>> {
  const root = join(fixturesDir, folder);
  const files = readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry): [string, Uint8Array] => {
      const path = join(entry.parentPath, entry.name);
      return [relative(root, path).split("\\").join("/"), new Uint8Array(readFileSync(path))];
    });
  return packPackage(files);
}

const kinds = ["tarball", "folder"] as const;

/** An app with the plugins in place: installed from their tarballs over the API, or copied as folders. */
async function installed(kind: (typeof kinds)[number], ...plugins: Shape[]): Promise<PluginApp> {
  if (kind === "folder") {
    return startPluginApp({
      fixtures: plugins.map(([folder]) => folder),
      entries: plugins.map(([, name]) => name),
    });
  }
  const app = await startPluginApp({});
  for (const [folder] of plugins) {
    const res = await app.request("/api/plugins/install?enable=true", {
      method: "POST",
      headers: { "content-type": "application/gzip" },
      body: await tarballOf(folder),
    });
    expect(res.status).toBe(201);
  }
  return app;
}

const wordFilter = shapes[0];
const emoji = shapes[1];
const audioTranscription = shapes[2];
const voiceCommands = shapes[3];

const stoppers: { stop(): unknown }[] = [];
afterEach(async () => {
  for (const server of stoppers.splice(0)) await server.stop();
});

/** The LLM stand-in as a command router: "lights" in the prompt is the lights-on command. */
function commandRouter(): LlmServer {
  const server = llmServer((request) => {
    const prompt = request.messages.at(-1)?.content ?? "";
    return JSON.stringify({ command: /lights/i.test(prompt) ? "lights-on" : null });
  });
  stoppers.push(server);
  return server;
}

/** The speech engine stand-in (svc's remote engine), answering `text` for any audio. */
function speech(text: string): SpeechServer {
  const server = fakeSpeechServer(text);
  stoppers.push(server);
  return server;
}

const clip = encodeWav(goForward());

async function transcribe(app: PluginApp) {
  const res = await app.request("/api/transcribe", {
    method: "POST",
    headers: { "content-type": "audio/wav" },
    body: clip,
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

async function historyCount(app: PluginApp): Promise<number> {
  return ((await (await app.request("/api/history")).json()) as { total: number }).total;
}

describe("Freestyle's plugins as published", () => {
  test.each(shapes)("%s is in Freestyle's shape: a freestyle key and the freestyle-voice SDK", (folder) => {
    const json = JSON.parse(readFileSync(join(fixturesDir, folder, "package.json"), "utf8"));
    expect(json.svc).toBeUndefined();
    expect(typeof json.freestyle).toBe("object");
    expect(Object.keys(json.dependencies)).toEqual(["freestyle-voice"]);
    const code = readFileSync(join(fixturesDir, folder, "dist/index.js"), "utf8");
    if (folder !== "fs-audio-transcription") expect(code).toContain('from "freestyle-voice"');
  });

  for (const kind of kinds) {
    test.each(shapes)(`%s installs unedited from a ${kind} and loads`, async (folder, name, icon) => {
      const app = await installed(kind, [folder, name, icon] as Shape);
      const status = await app.status(name);
      expect(status).toMatchObject({ loaded: true, enabled: true, icon, error: null });
    });
  }
});

describe("each does its job", () => {
  for (const kind of kinds) {
    test(`the word filter (from a ${kind}) filters the final text and serves its words`, async () => {
      const app = await installed(kind, wordFilter);
      const res = await app.json("/api/post-process", "POST", { text: "well darn it that is crap" });
      expect(((await res.json()) as { text: string }).text).toBe("Well dang it that is crud");
      const words = await app.request("/api/plugins/fs-word-filter/replacements");
      expect(((await words.json()) as { replacements: { word: string }[] }).replacements[0]?.word).toBe(
        "darn",
      );
    });

    test(`the emoji plugin's instruction (from a ${kind}) reaches the LLM`, async () => {
      const app = await installed(kind, emoji);
      const llm = llmServer(() => "I love this.");
      stoppers.push(llm);
      useLlmServer(app, llm);
      app.services.settings.set("cleanup_mode", "llm");
      const res = await app.json("/api/post-process", "POST", { text: "i love this" });
      expect(((await res.json()) as { text: string }).text).toBe("I love this.");
      expect(llm.requests).toHaveLength(1);
      const system = llm.requests[0]?.messages.find((message) => message.role === "system")?.content;
      expect(system).toContain("PLUGIN OVERRIDE: add a few fitting emojis");
    });

    test(`the audio transcription plugin's page (from a ${kind}) is listed and served with the bridge`, async () => {
      const app = await installed(kind, audioTranscription);
      const status = await app.status("@fs/audio-transcription");
      const url = status?.pages[0]?.url ?? "";
      expect(url).toBe("/api/plugins/fs-audio-transcription/ui/index.html");
      const html = await (await app.request(url)).text();
      expect(html).toContain("<script");
      expect(html).toContain("./assets/index.js");
    });

    test(`the voice command (from a ${kind}) asks the LLM, runs, and is suppressed on /api/transcribe`, async () => {
      const app = await installed(kind, voiceCommands);
      const llm = commandRouter();
      useLlmServer(app, llm);
      useSpeechServer(app, speech("Turn the lights on please"));
      const answer = await transcribe(app);
      expect(answer).toMatchObject({
        text: "",
        disposition: "suppressed",
        reason: "voice command: lights-on",
        consumedBy: "@fs/voice-commands",
        mode: "none",
        historyId: null,
      });
      expect(llm.requests).toHaveLength(1);
      expect(llm.requests[0]?.messages.at(-1)?.content).toBe("Turn the lights on please");
      // svc's API key reaches the endpoint; the plugin never saw it.
      expect(llm.requests[0]?.authorization).toBe("Bearer sk-test");
      expect(await historyCount(app)).toBe(0);
      const ran = await (await app.request("/api/plugins/fs-voice-commands/ran")).json();
      expect(ran).toEqual({ ran: [{ command: "lights-on", heard: "Turn the lights on please" }] });
    });
  }

  test("prose is not a command: delivered and stored as usual", async () => {
    const app = await installed("folder", voiceCommands);
    useLlmServer(app, commandRouter());
    useSpeechServer(app, speech("take a note about the meeting"));
    const answer = await transcribe(app);
    expect(answer).toMatchObject({ disposition: "deliver", reason: null, consumedBy: null, mode: "paste" });
    expect(answer.text).toBe("Take a note about the meeting");
    expect(await historyCount(app)).toBe(1);
  });

  test("a voice command sent as text to /api/post-process is suppressed too", async () => {
    const app = await installed("folder", voiceCommands);
    useLlmServer(app, commandRouter());
    const res = await app.json("/api/post-process", "POST", { text: "lights on" });
    expect(await res.json()).toMatchObject({
      text: "",
      disposition: "suppressed",
      consumedBy: "@fs/voice-commands",
      reason: "voice command: lights-on",
    });
  });

  test("a voice command on /v1 answers an empty transcript", async () => {
    const app = await installed("folder", voiceCommands);
    useLlmServer(app, commandRouter());
    useSpeechServer(app, speech("lights on"));
    const body = new FormData();
    body.append("file", new File([clip], "goforward.wav", { type: "audio/wav" }));
    body.append("model", "whisper-1");
    body.append("response_format", "verbose_json");
    const res = await app.request("/v1/audio/transcriptions", { method: "POST", body });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { text: string; segments: unknown[] };
    expect(answer.text).toBe("");
    expect(answer.segments).toEqual([]);
    expect(await historyCount(app)).toBe(0);
  });

  test("a voice command on /api/dictate: the final says suppressed, with no text", async () => {
    const server = serveDictation({ pluginsDir: pluginsDirWith(voiceCommands[0]) });
    stoppers.push(server);
    server.app.services.settings.set("plugins", [voiceCommands[1]]);
    await server.app.plugins.start();
    useLlmServer(server.app, commandRouter());
    useSpeechServer(server.app, speech("lights on"));
    const client = connect(server.url);
    await client.opened;
    client.json({ type: "start", format: "pcm16", sampleRate: 16_000 });
    await client.next("ready");
    await streamFrames(client, toPcm16(goForward()), 3200, 5);
    await streamFrames(client, toPcm16(new Float32Array(16_000)), 3200, 5);
    client.json({ type: "stop" });
    const final = await client.next("final");
    expect(final).toMatchObject({
      text: "",
      disposition: "suppressed",
      consumedBy: "@fs/voice-commands",
      reason: "voice command: lights-on",
      historyId: null,
    });
  }, 30_000);

  test("a voice command over Wyoming: the transcript is empty", async () => {
    const server = serveWyoming({ pluginsDir: pluginsDirWith(voiceCommands[0]) });
    stoppers.push(server);
    server.app.services.settings.set("plugins", [voiceCommands[1]]);
    await server.app.plugins.start();
    useLlmServer(server.app, commandRouter());
    useSpeechServer(server.app, speech("lights on"));
    const client = await connectWyoming(server.port);
    const format = { rate: 16_000, width: 2, channels: 1 };
    client.send("transcribe", { language: "en" });
    client.send("audio-start", { ...format, timestamp: null });
    await streamChunks(client, toPcm16(goForward()), format, 1024);
    client.send("audio-stop", { timestamp: null });
    const transcript = await client.next("transcript");
    expect(transcript.data.text).toBe("");
    client.close();
    const history = await server.app.request("/api/history");
    expect(((await history.json()) as { total: number }).total).toBe(0);
  }, 30_000);
});
