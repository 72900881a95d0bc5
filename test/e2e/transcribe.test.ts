import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { createTestApp } from "../helpers/app.ts";
import { type RunningServer, runBinary, startBinary } from "../helpers/binary.ts";
import { connect, streamFrames } from "../helpers/dictate-server.ts";
import { fakeSpeechServer } from "../helpers/speech-server.ts";
import { goForward } from "../helpers/sphinx-testdata.ts";
import { syntheticModel } from "../helpers/synthetic-model.ts";
import { until } from "../helpers/until.ts";

let dir: string;
let server: RunningServer;
const clip = encodeWav(goForward());

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-e2e-stt-"));
  mkdirSync(join(dir, "models"));
  // The synthetic model has base.en's file name, so the default settings find it.
  copyFileSync(syntheticModel("micro"), join(dir, "models", "ggml-base.en.bin"));
  server = await startBinary({ SVC_DB_PATH: join(dir, "svc.db"), SVC_MODELS_DIR: join(dir, "models") });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function post(body: Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}) {
  return await fetch(`${server.url}/api/transcribe`, {
    method: "POST",
    body,
    headers: { "content-type": "audio/wav", ...headers },
  });
}

/** Native libraries the server process has mapped: none may come from a node_modules folder. */
function mappedFromNodeModules(pid: number): string[] {
  return readFileSync(`/proc/${pid}/maps`, "utf8")
    .split("\n")
    .filter((line) => line.includes("node_modules"));
}

/**
 * The sizes of the native addons (.node files, unpacked into the temporary folder) the process has
 * mapped: whisper.cpp's builds are megabytes, the CPU probe that picks one tens of kilobytes.
 */
function mappedAddonSizes(pid: number): number[] {
  const paths = readFileSync(`/proc/${pid}/maps`, "utf8")
    .split("\n")
    .map((line) => line.split(/\s+/).slice(5).join(" "))
    .filter((path) => path.endsWith(".node"));
  return [...new Set(paths)].map((path) => statSync(path).size);
}

describe("compiled binary transcription", () => {
  test("whisper (synthetic model) answers with the full result shape and a Server-Timing header", async () => {
    const res = await post(clip);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ engine: "whisper", model: "base.en", historyId: expect.any(Number) });
    expect(typeof body.text).toBe("string");
    expect(res.headers.get("server-timing")).toContain("engine;dur=");
    expect(mappedFromNodeModules(server.proc.pid)).toEqual([]);
  }, 60_000);

  test("switching stt_engine to sphinx without a restart gives real text", async () => {
    const put = await fetch(`${server.url}/api/settings/stt_engine`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ value: "sphinx" }),
    });
    expect(put.status).toBe(200);
    const res = await post(clip);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ engine: "sphinx", raw: "go forward ten meters" });
  }, 60_000);

  test("compressed uploads decode inside the binary: the codecs are chunks loaded on first use", async () => {
    // The speech engine is sphinx since the previous test; the clips must reach it as audio.
    const fixtures = join(import.meta.dir, "..", "fixtures", "audio");
    for (const [file, type] of [
      ["speech-opus.webm", "audio/webm"],
      ["sine.mp3", "audio/mpeg"],
      ["sine.flac", "audio/flac"],
      ["sine.m4a", "audio/mp4"],
    ] as const) {
      const res = await post(new Uint8Array(readFileSync(join(fixtures, file))), { "content-type": type });
      expect({ file, status: res.status }).toEqual({ file, status: 200 });
      expect(((await res.json()) as { engine: string }).engine).toBe("sphinx");
    }
    const speech = await post(new Uint8Array(readFileSync(join(fixtures, "speech-opus.webm"))), {
      "content-type": "audio/webm",
    });
    // espeak-ng said "hello from the dictation test"; sphinx hears its first words reliably.
    expect(((await speech.json()) as { raw: string }).raw).toStartWith("hello from");
  }, 60_000);

  test("GET /api/dictate streams WebM/Opus in MediaRecorder-sized chunks to the same text", async () => {
    // The engine is sphinx since the earlier test. Segments need the detector, loaded from the binary.
    const webm = new Uint8Array(
      readFileSync(join(import.meta.dir, "..", "fixtures", "audio", "goforward-opus.webm")),
    );
    const client = connect(`${server.url.replace("http", "ws")}/api/dictate`);
    await client.opened;
    client.json({ type: "start", format: "webm-opus" });
    await client.next("ready");
    await streamFrames(client, webm, 1000, 20);
    client.json({ type: "stop" });
    const final = await client.next("final");
    expect(final).toMatchObject({ text: "Go forward ten meters", engine: "sphinx" });
    expect(client.messages.filter((m) => m.type === "segment").map((m) => m.text)).toEqual([
      "go forward ten meters",
    ]);
    expect((await client.closed).code).toBe(1000);
    expect(mappedFromNodeModules(server.proc.pid)).toEqual([]);
  }, 60_000);

  test("svc transcribe FILE prints the text offline, --json the whole result", async () => {
    const file = join(dir, "goforward.wav");
    await Bun.write(file, clip);
    const env = { SVC_DB_PATH: join(dir, "cli.db"), SVC_MODELS_DIR: join(dir, "models") };
    const settings = await runBinary(["transcribe", "--engine", "sphinx", file], env);
    expect(settings.code).toBe(0);
    expect(settings.stdout.trim()).toBe("Go forward ten meters");
    const json = await runBinary(["transcribe", "--engine", "sphinx", "--json", file], env);
    expect(JSON.parse(json.stdout)).toMatchObject({ raw: "go forward ten meters", engine: "sphinx" });
    const missing = await runBinary(["transcribe", join(dir, "nope.wav")], env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("nope.wav");
  }, 60_000);
});

describe("svc dictate in the compiled binary", () => {
  test("streams a recording through live dictation: pieces at pauses, one final text", async () => {
    // Three takes of goforward with pauses between them: the detector cuts three pieces.
    const pause = new Float32Array(16_000 * 0.8);
    const takes = [goForward(), pause, goForward(), pause, goForward(), pause];
    const pcm = new Float32Array(takes.reduce((sum, part) => sum + part.length, 0));
    let at = 0;
    for (const part of takes) {
      pcm.set(part, at);
      at += part.length;
    }
    const file = join(dir, "three-takes.wav");
    await Bun.write(file, encodeWav(pcm));
    const dbPath = join(dir, "dictate.db");
    const setup = createTestApp({ dbPath });
    setup.services.settings.set("stt_engine", "sphinx");
    setup.db.close();
    const env = { SVC_DB_PATH: dbPath, SVC_MODELS_DIR: join(dir, "models") };
    const run = await runBinary(["dictate", "--json", file], env);
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split("\n")
      .map(
        (line) =>
          JSON.parse(line) as {
            type: string;
            text: string;
            start?: number;
            end?: number;
            historyId?: number;
          },
      );
    const segments = events.filter((event) => event.type === "segment");
    expect(segments.map((segment) => segment.text)).toEqual(Array(3).fill("go forward ten meters"));
    for (const segment of segments)
      expect(segment.end ?? 0).toBeLessThanOrEqual((pcm.length / 16_000) * 1000);
    const final = events.at(-1);
    expect(final).toMatchObject({
      type: "final",
      text: "Go forward ten meters go forward ten meters go forward ten meters",
    });
    expect(final?.historyId).toBeGreaterThan(0);
    // Without --json: the final text alone on stdout, the pieces on stderr.
    const plain = await runBinary(["dictate", "--no-history", file], env);
    expect(plain.stdout.trim()).toBe(final?.text ?? "");
    expect(plain.stderr).toContain("+ go forward ten meters");
  }, 60_000);
});

describe("compiled binary graceful shutdown", () => {
  test("SIGTERM lets an in-flight transcription finish, then exits 0", async () => {
    using upstream = fakeSpeechServer(async () => {
      await Bun.sleep(1500);
      return "finished after shutdown began";
    });
    const own = await startBinary({ SVC_DB_PATH: join(mkdtempSync(join(tmpdir(), "svc-drain-")), "svc.db") });
    const put = (key: string, value: unknown) =>
      fetch(`${own.url}/api/settings/${key}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ value }),
      });
    await put("stt_engine", "remote");
    await put("remote_stt_base_url", upstream.url);
    await put("remote_stt_model", "whisper-1");
    const inFlight = fetch(`${own.url}/api/transcribe`, {
      method: "POST",
      body: clip,
      headers: { "content-type": "audio/wav" },
    });
    await Bun.sleep(400);
    own.proc.kill("SIGTERM");
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { text: string }).text).toBe("Finished after shutdown began");
    expect(await own.proc.exited).toBe(0);
  }, 30_000);
});

describe("compiled binary start", () => {
  test("loads no engine: it says the selected one is ready, and the first dictation loads it", async () => {
    const own = await startBinary({
      SVC_DB_PATH: join(dir, "warm.db"),
      SVC_MODELS_DIR: join(dir, "models"),
    });
    const said = (msg: string) => own.lines.filter((line) => line.msg === msg);
    const ready = () => said("speech engine ready to load on first use");
    await until(() => ready().length, Boolean, { timeoutMs: 5000, what: "the start's engine line" });
    expect(ready()).toMatchObject([{ engine: "whisper" }]);
    expect(said("speech model loaded")).toEqual([]);
    expect(said("voice activity detector loaded")).toEqual([]);
    // The start checked the processor with the small probe, and loaded no whisper.cpp build.
    const megabyte = 1024 * 1024;
    expect(mappedAddonSizes(own.proc.pid).filter((size) => size >= megabyte)).toEqual([]);
    const answer = await fetch(`${own.url}/api/transcribe`, {
      method: "POST",
      headers: { "content-type": "audio/wav" },
      body: clip,
    });
    expect(answer.status).toBe(200);
    expect(said("speech model loaded")).toMatchObject([{ engine: "whisper" }]);
    expect(mappedAddonSizes(own.proc.pid).filter((size) => size >= megabyte)).toHaveLength(1);
    expect(await own.stop()).toBe(0);
  }, 30_000);
});
