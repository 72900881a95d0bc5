import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runDictateCommand } from "../../src/cli/dictate.ts";
import { type OfflineCommand, runTranscribeCommand } from "../../src/cli/transcribe.ts";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { createLiveDriver } from "../../src/dictation/live/driver.ts";
import { liveDoors } from "../../src/dictation/live/limits.ts";
import { socketHandler } from "../../src/http/sockets.ts";
import type { Runtime } from "../../src/runtime.ts";
import { describeSvc, requestedModel } from "../../src/wyoming/info.ts";
import { wyomingLimits } from "../../src/wyoming/limits.ts";
import { createWyomingServer } from "../../src/wyoming/server.ts";
import { dictate, openStream } from "../helpers/desktop-client.ts";
import { connect, streamFrames, toPcm16 } from "../helpers/dictate-server.ts";
import { type PluginApp, startPluginApp } from "../helpers/plugins.ts";
import { goForward } from "../helpers/sphinx-testdata.ts";
import { connectWyoming, streamChunks } from "../helpers/wyoming.ts";

// Every door a dictation comes in by (POST /api/transcribe, /v1, svc transcribe, GET /api/dictate,
// Wyoming, svc dictate), driven with one plugin that records each hook call it gets, with the
// sphinx engine on the goforward clip followed by a second of the silence that closes its piece.

interface HookCall {
  hook: string;
  source: string;
  app: string | null;
  language: string | null;
  text?: string;
  durationMs?: number;
  /** beforeTranscribe's `modelId`. */
  model?: string;
}

const wav = encodeWav(Float32Array.from([...goForward(), ...new Float32Array(16_000)]));
/** The same samples as raw 16-bit PCM, as a live client streams them. */
const pcm16 = wav.subarray(44);
const allHooks = ["afterCleanup", "afterTranscribe", "beforeCleanup", "beforeTranscribe"];

interface Doors {
  app: PluginApp;
  /** The hook calls since the last time they were asked for. */
  calls(): Promise<HookCall[]>;
  dictateUrl: string;
  /** The HTTP base the Freestyle desktop app's /stream is under. */
  base: string;
  wyomingPort: number;
  /** The clip as a WAV file. */
  file: string;
  /** An offline command over this app's runtime; its stdout. */
  cli(command: OfflineCommand, args: string[]): Promise<string>;
  stop(): Promise<void>;
}

let doors: Doors | undefined;
afterEach(async () => {
  await doors?.stop();
  doors = undefined;
});

async function openDoors(): Promise<Doors> {
  const app = await startPluginApp({
    fixtures: ["fx-hook-sources"],
    entries: ["@fx/hook-sources"],
    freestyleDesktop: true,
  });
  const { settings } = app.services;
  settings.set("stt_engine", "sphinx");
  // beforeCleanup runs before the LLM pass: an endpoint that refuses, so the deterministic text goes on.
  settings.set("cleanup_mode", "llm");
  settings.set("llm_base_url", "http://127.0.0.1:9/v1");
  settings.set("llm_model", "none");
  // The clip is sent at once, faster than real time, which these tests are not about.
  settings.set("dictate_max_speed", 1000);
  settings.set("wyoming_max_speed", 1000);
  const http = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: app.app.fetch,
    websocket: socketHandler,
    development: false,
  });
  const sources = {
    version: "0.0.0-test",
    url: "http://127.0.0.1:4649",
    settings,
    stores: { whisper: app.models.store },
  };
  const wyoming = createWyomingServer({
    live: createLiveDriver({
      transcriber: app.dictation.transcriber,
      vad: app.dictation.vad,
      door: liveDoors.wyoming,
      settings,
    }),
    limits: wyomingLimits(settings),
    info: () => describeSvc(sources),
    model: (name, language) => requestedModel(sources, name, language),
    logger: app.logger,
  });
  const listener = wyoming.listen("127.0.0.1", 0);
  const dir = mkdtempSync(join(tmpdir(), "svc-doors-"));
  const file = join(dir, "goforward.wav");
  await Bun.write(file, wav);
  // The offline commands run over this app's runtime, which they must leave open.
  const runtime: Runtime = {
    db: app.db,
    access: app.access,
    events: app.bus,
    services: app.services,
    plugins: app.plugins,
    models: app.modelServices,
    dictation: app.dictation,
    close: async () => {},
  };
  return {
    app,
    async calls() {
      const res = await app.request("/api/plugins/fx-hook-sources/calls");
      return ((await res.json()) as { calls: HookCall[] }).calls;
    },
    dictateUrl: `ws://127.0.0.1:${http.port}/api/dictate`,
    base: `http://127.0.0.1:${http.port}`,
    wyomingPort: listener.port,
    file,
    async cli(command, args) {
      let stdout = "";
      let stderr = "";
      const code = await command(args, async () => runtime, {
        stdout: (text) => {
          stdout += text;
        },
        stderr: (text) => {
          stderr += text;
        },
      });
      if (code !== 0) throw new Error(`exit ${code}: ${stderr}`);
      return stdout;
    },
    async stop() {
      wyoming.stop();
      app.app.sockets.closeAll();
      await http.stop(true);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The clip over GET /api/dictate in 100 ms frames: the final body and the segments. */
async function overWebSocket(url: string, start: Record<string, unknown> = {}) {
  const client = connect(url);
  await client.opened;
  client.json({ type: "start", format: "pcm16", sampleRate: 16_000, ...start });
  await client.next("ready");
  await streamFrames(client, pcm16, 3200);
  client.json({ type: "stop" });
  const final = await client.next("final");
  await client.closed;
  const segments = client.messages.filter((message) => message.type === "segment");
  return { text: final.text, segments };
}

/** The clip as Home Assistant sends it: the transcript and its chunks' texts. */
async function overWyoming(port: number) {
  const client = await connectWyoming(port);
  const format = { rate: 16_000, width: 2, channels: 1 };
  client.send("transcribe", { language: "en" });
  client.send("audio-start", format);
  await streamChunks(client, pcm16, format, 1024);
  client.send("audio-stop");
  const transcript = await client.next("transcript");
  await client.next("transcript-stop");
  client.close();
  const chunks = client.events.filter((event) => event.type === "transcript-chunk");
  return { text: transcript.data.text, chunks: chunks.map((chunk) => String(chunk.data.text).trim()) };
}

/** The clip over the Freestyle desktop app's /stream, as the app sends it: the final text. */
async function overDesktop(base: string) {
  const socket = await openStream(base);
  await socket.next("config");
  const recorded = await dictate(base, socket, toPcm16(goForward()), { realTime: false });
  socket.ws.close();
  return recorded.pasted;
}

/** `svc dictate --json`: the final body and the segments it printed. */
async function overCli(open: Doors, args: string[] = []) {
  const lines = (await open.cli(runDictateCommand, ["--json", ...args, open.file]))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const final = lines.find((line) => line.type === "final");
  return { text: final?.text, segments: lines.filter((line) => line.type === "segment") };
}

describe("every dictation path runs the plugin hooks", () => {
  test("each hook runs on every path, and its input names the door the dictation came in by", async () => {
    doors = await openDoors();
    const open = doors;
    const upload = () =>
      open.app.request("/api/transcribe", {
        method: "POST",
        headers: { "content-type": "audio/wav" },
        body: wav,
      });
    const openai = () => {
      const form = new FormData();
      form.append("file", new Blob([wav], { type: "audio/wav" }), "goforward.wav");
      form.append("model", "whisper-1");
      return open.app.request("/v1/audio/transcriptions", { method: "POST", body: form });
    };
    const paths: [string, () => Promise<unknown>][] = [
      ["api", async () => expect((await upload()).status).toBe(200)],
      ["openai", async () => expect((await openai()).status).toBe(200)],
      ["cli", () => open.cli(runTranscribeCommand, [open.file])],
      ["live", () => overWebSocket(open.dictateUrl)],
      ["wyoming", () => overWyoming(open.wyomingPort)],
      ["cli", () => overCli(open)],
      ["desktop", () => overDesktop(open.base)],
    ];
    for (const [source, dictate] of paths) {
      await dictate();
      const calls = await open.calls();
      expect({ source, hooks: [...new Set(calls.map((call) => call.hook))].sort() }).toEqual({
        source,
        hooks: allHooks,
      });
      expect(calls.filter((call) => call.source !== source)).toEqual([]);
      // The engine's own model, not whisper's stt_model: sphinx answers with en-us.
      const models = calls.filter((call) => call.hook === "beforeTranscribe").map((call) => call.model);
      expect({ source, models: [...new Set(models)] }).toEqual({ source, models: ["en-us"] });
    }
  }, 60_000);
});

describe("the same audio through /api/dictate, Wyoming and svc dictate", () => {
  test("gives the same text, the same segments and the same hook calls", async () => {
    doors = await openDoors();
    // Wyoming's dictations are for the app "Wyoming" (the Voice assistant format), in English.
    const socket = await overWebSocket(doors.dictateUrl, { language: "en", appContext: "Wyoming" });
    const socketCalls = await doors.calls();
    const wyoming = await overWyoming(doors.wyomingPort);
    const wyomingCalls = await doors.calls();
    const cli = await overCli(doors, ["--language", "en", "--app-context", "Wyoming"]);
    const cliCalls = await doors.calls();

    expect(socket.text).toBe("go forward ten meters");
    expect(wyoming.text).toBe(socket.text);
    expect(cli.text).toBe(socket.text);
    expect(socket.segments.length).toBeGreaterThan(0);
    expect(cli.segments).toEqual(socket.segments);
    expect(wyoming.chunks).toEqual(socket.segments.map((segment) => String(segment.text)));

    const withoutSource = (calls: HookCall[]) => calls.map(({ source: _, ...call }) => call);
    expect(socketCalls.map((call) => call.hook)).toContain("beforeTranscribe");
    expect(withoutSource(wyomingCalls)).toEqual(withoutSource(socketCalls));
    expect(withoutSource(cliCalls)).toEqual(withoutSource(socketCalls));
    expect(
      [socketCalls, wyomingCalls, cliCalls].map((calls) => [...new Set(calls.map((c) => c.source))]),
    ).toEqual([["live"], ["wyoming"], ["cli"]]);
  }, 60_000);
});
