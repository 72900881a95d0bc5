import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { fakeSpeechServer, useSpeechServer } from "../helpers/speech-server.ts";
import { goForward, librivoxClips, TESTDATA } from "../helpers/sphinx-testdata.ts";
import { wer } from "../helpers/wer.ts";

let dir: string;
let goforwardWav: Uint8Array<ArrayBuffer>;

/** Re-encodes the WAV with Debian's ffmpeg, as a browser or phone would send it. */
function encode(extension: string, args: string[]): Uint8Array<ArrayBuffer> {
  const source = join(dir, "goforward.wav");
  const target = join(dir, `goforward.${extension}`);
  const result = Bun.spawnSync(["ffmpeg", "-loglevel", "error", "-y", "-i", source, ...args, target]);
  if (result.exitCode !== 0) throw new Error(`ffmpeg failed: ${result.stderr.toString()}`);
  return new Uint8Array(readFileSync(target));
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-transcribe-"));
  goforwardWav = encodeWav(goForward());
  writeFileSync(join(dir, "goforward.wav"), goforwardWav);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Points the app at a real OpenAI-compatible server on this machine (`upstream`). */
type Body = Record<string, unknown> & { text: string; raw: string; timings: Record<string, number> };

function sphinxApp(): TestApp {
  const app = createTestApp();
  app.services.settings.set("stt_engine", "sphinx");
  return app;
}

async function transcribe(
  app: TestApp,
  audio: Uint8Array<ArrayBuffer>,
  type: string,
  headers: Record<string, string> = {},
) {
  const res = await app.request("/api/transcribe", {
    method: "POST",
    body: audio,
    headers: { "content-type": type, ...headers },
  });
  return { res, body: (await res.json()) as Body };
}

describe("POST /api/transcribe with the sphinx engine (real speech)", () => {
  test('goforward.raw as WAV gives "go forward ten meters", cleaned, timed and stored', async () => {
    const app = sphinxApp();
    const { res, body } = await transcribe(app, goforwardWav, "audio/wav");
    expect(res.status).toBe(200);
    expect(body.raw).toBe("go forward ten meters");
    expect(body.text).toBe("Go forward ten meters");
    expect(body).toMatchObject({ engine: "sphinx", model: "en-us", language: "en" });
    expect(body.audioDurationMs).toBeGreaterThan(2500);
    expect(body.audioDurationMs).toBeLessThan(3200);
    for (const stage of ["decode", "queue", "engine", "cleanup", "dictionary", "plugins"]) {
      expect(typeof body.timings[stage]).toBe("number");
    }
    expect(body.timings.engine).toBeGreaterThan(0);
    expect(res.headers.get("server-timing")).toMatch(
      /^decode;dur=[\d.]+, queue;dur=.*engine;dur=.*total;dur=/,
    );
    const history = (await (await app.request(`/api/history/${body.historyId}`)).json()) as Record<
      string,
      unknown
    >;
    expect(history).toMatchObject({ rawText: "go forward ten meters", finalText: "Go forward ten meters" });
    expect(app.events.map((event) => event.type)).toContain("transcription.completed");
  });

  test.each([
    ["webm", "audio/webm", ["-c:a", "libopus", "-b:a", "32k"]],
    ["ogg", "audio/ogg", ["-c:a", "libopus", "-b:a", "32k"]],
    ["mp3", "audio/mpeg", ["-b:a", "64k"]],
    ["flac", "audio/flac", []],
  ])("the same clip as %s gives the same text", async (extension, type, args) => {
    const app = sphinxApp();
    const { res, body } = await transcribe(app, encode(extension, args as string[]), type);
    expect(res.status).toBe(200);
    expect(body.raw).toBe("go forward ten meters");
  });

  test("the LibriVox clips stay under 35 % WER through HTTP", async () => {
    const app = sphinxApp();
    const pairs: { reference: string; hypothesis: string }[] = [];
    for (const clip of librivoxClips()) {
      const { body } = await transcribe(app, encodeWav(clip.pcm), "audio/wav", {
        "x-skip-post-process": "true",
      });
      pairs.push({ reference: clip.reference, hypothesis: body.raw });
    }
    expect(wer(pairs)).toBeLessThan(0.35);
  }, 60_000);

  test("multipart uploads work with the field named audio or file", async () => {
    const app = sphinxApp();
    for (const field of ["audio", "file"]) {
      const form = new FormData();
      form.set(field, new Blob([goforwardWav], { type: "audio/wav" }), "clip.wav");
      const res = await app.request("/api/transcribe", { method: "POST", body: form });
      expect(res.status).toBe(200);
      expect(((await res.json()) as Body).raw).toBe("go forward ten meters");
    }
  });

  test("a multipart part's own type is read with its parameters: raw PCM in a form is decoded", async () => {
    const app = sphinxApp();
    const little = new Uint8Array(readFileSync(`${TESTDATA}/goforward.raw`));
    const big = little.slice();
    for (let i = 0; i + 1 < big.length; i += 2) [big[i], big[i + 1]] = [little[i + 1] ?? 0, little[i] ?? 0];
    for (const [field, audio, type] of [
      ["audio", big, "audio/L16;rate=16000"],
      ["file", little, "audio/pcm"],
    ] as const) {
      const form = new FormData();
      form.set("note", "not the audio");
      form.set(field, new Blob([audio], { type }), "clip.raw");
      const res = await app.request("/api/transcribe", { method: "POST", body: form });
      expect({ type, status: res.status }).toEqual({ type, status: 200 });
      expect(((await res.json()) as Body).raw).toBe("go forward ten meters");
    }
  });

  test("the dictionary, the app's format and x-skip-post-process apply", async () => {
    const app = sphinxApp();
    await app.json("/api/dictionary", "POST", { key: "ten meters", value: "10 m" });
    const terminal = await transcribe(app, goforwardWav, "audio/wav", { "x-app-context": "Terminal" });
    expect(terminal.body.text).toBe("go forward 10 m");
    expect(terminal.body.format).toMatchObject({ label: expect.stringMatching(/terminal/i) });
    const skipped = await transcribe(app, goforwardWav, "audio/wav", { "x-skip-post-process": "true" });
    expect(skipped.body.text).toBe("go forward ten meters");
  });

  test("a paused history stores nothing and answers historyId null", async () => {
    const app = sphinxApp();
    app.services.settings.set("history_paused", true);
    const { body } = await transcribe(app, goforwardWav, "audio/wav");
    expect(body.historyId).toBeNull();
    const list = (await (await app.request("/api/history")).json()) as { total: number };
    expect(list.total).toBe(0);
  });

  test("an app context at its limits is stored whole; one past them is 400 and stores nothing", async () => {
    const app = sphinxApp();
    const context = {
      app: "a".repeat(200),
      title: "t".repeat(1000),
      url: `https://x.example/${"u".repeat(4078)}`,
    };
    const { res, body } = await transcribe(app, goforwardWav, "audio/wav", {
      "x-app-context": JSON.stringify(context),
    });
    expect(res.status).toBe(200);
    const stored = (await (await app.request(`/api/history/${body.historyId}`)).json()) as {
      appContext: typeof context;
    };
    expect(stored.appContext).toEqual(context);
    for (const field of ["app", "title", "url"] as const) {
      const over = { ...context, [field]: `${context[field]}x` };
      const refused = await transcribe(app, goforwardWav, "audio/wav", {
        "x-app-context": JSON.stringify(over),
      });
      expect({ field, status: refused.res.status }).toEqual({ field, status: 400 });
    }
    const list = (await (await app.request("/api/history")).json()) as { total: number };
    expect(list.total).toBe(1);
  });
});

describe("POST /api/transcribe input errors", () => {
  test("silence answers empty text without calling the engine", async () => {
    using upstream = fakeSpeechServer("Thank you for watching.");
    const app = createTestApp();
    useSpeechServer(app, upstream);
    const { res, body } = await transcribe(app, encodeWav(new Float32Array(16_000 * 2)), "audio/wav");
    expect(res.status).toBe(200);
    expect(body.text).toBe("");
    expect(upstream.calls).toBe(0);
    const spoken = await transcribe(app, goforwardWav, "audio/wav");
    expect(spoken.body.raw).toBe("");
    expect(upstream.calls).toBe(1);
    // Neither empty answer is history.
    expect([body.historyId, spoken.body.historyId]).toEqual([null, null]);
    expect(((await (await app.request("/api/history")).json()) as { total: number }).total).toBe(0);
  });

  test("a remote engine's text goes through the pipeline", async () => {
    using upstream = fakeSpeechServer(" um so I I think we should ship it");
    const app = createTestApp();
    useSpeechServer(app, upstream);
    const { res, body } = await transcribe(app, goforwardWav, "audio/wav");
    expect(res.status).toBe(200);
    expect(body.engine).toBe("remote");
    expect(body.text).toBe("So I think we should ship it");
  });

  test("engine non-speech tags are removed whatever cleanup_mode says", async () => {
    using upstream = fakeSpeechServer("(music) ship it (laughs) today *applause* [BLANK_AUDIO]");
    const app = createTestApp();
    useSpeechServer(app, upstream);
    for (const mode of ["off", "basic"] as const) {
      app.services.settings.set("cleanup_mode", mode);
      const { body } = await transcribe(app, goforwardWav, "audio/wav");
      expect({ mode, raw: body.raw }).toEqual({ mode, raw: "ship it today" });
    }
  });

  test("remote_stt_concurrency lets that many requests reach the remote server at once", async () => {
    let active = 0;
    let peak = 0;
    using upstream = fakeSpeechServer(async () => {
      peak = Math.max(peak, ++active);
      // Held until three are in flight (or long enough to show they never will be).
      for (let waited = 0; active < 3 && waited < 300; waited += 10) await Bun.sleep(10);
      await Bun.sleep(20);
      active--;
      return "ok";
    });
    const app = createTestApp();
    useSpeechServer(app, upstream);
    const three = () => Promise.all([1, 2, 3].map(() => transcribe(app, goforwardWav, "audio/wav")));
    for (const { res } of await three()) expect(res.status).toBe(200);
    expect(peak).toBe(1);
    peak = 0;
    app.services.settings.set("remote_stt_concurrency", 3);
    for (const { res } of await three()) expect(res.status).toBe(200);
    expect(peak).toBe(3);
  });

  test("vocabulary terms reach the engine's prompt, and a new term reaches the next request", async () => {
    const prompts: string[] = [];
    using upstream = fakeSpeechServer(async (request) => {
      prompts.push(String((await request.formData()).get("prompt") ?? ""));
      return "ok";
    });
    const app = createTestApp();
    useSpeechServer(app, upstream);
    await app.json("/api/vocabulary", "POST", { term: "Kubernetes" });
    await transcribe(app, goforwardWav, "audio/wav");
    await app.json("/api/vocabulary", "POST", { term: "PostgreSQL" });
    await transcribe(app, goforwardWav, "audio/wav");
    expect(prompts).toHaveLength(2);
    expect(prompts[0]).toContain("Kubernetes");
    expect(prompts[0]).not.toContain("PostgreSQL");
    expect(prompts[1]).toContain("Kubernetes");
    expect(prompts[1]).toContain("PostgreSQL");
  });

  test("whisper without an installed model is 503 model_unavailable saying how to get one", async () => {
    const app = createTestApp();
    const { res, body } = await transcribe(app, goforwardWav, "audio/wav");
    expect(res.status).toBe(503);
    const error = (body as unknown as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("model_unavailable");
    expect(error.message).toContain("svc models pull base.en");
  });

  test("unsupported audio is 415, an empty body 400, a bad x-language 400", async () => {
    const app = sphinxApp();
    const garbage = await transcribe(
      app,
      new TextEncoder().encode("not audio at all"),
      "application/octet-stream",
    );
    expect(garbage.res.status).toBe(415);
    const empty = await app.request("/api/transcribe", {
      method: "POST",
      headers: { "content-type": "audio/wav" },
    });
    expect(empty.status).toBe(400);
    const badLanguage = await transcribe(app, goforwardWav, "audio/wav", { "x-language": "english please" });
    expect(badLanguage.res.status).toBe(400);
    const badContext = await transcribe(app, goforwardWav, "audio/wav", { "x-app-context": "{not json" });
    expect(badContext.res.status).toBe(400);
  });

  test("audio longer than max_audio_seconds is 413 audio_too_long", async () => {
    const app = sphinxApp();
    app.services.settings.set("max_audio_seconds", 1);
    const { res, body } = await transcribe(app, goforwardWav, "audio/wav");
    expect(res.status).toBe(413);
    expect((body as unknown as { error: { code: string } }).error.code).toBe("audio_too_long");
  });
});

describe("POST /api/transcribe scheduling limits", () => {
  function slowRemote(app: TestApp, delayMs: number) {
    const upstream = fakeSpeechServer(async () => {
      await Bun.sleep(delayMs);
      return "slow but sure";
    });
    useSpeechServer(app, upstream);
    return upstream;
  }

  test("a full queue answers 503 busy with Retry-After while the accepted requests finish", async () => {
    const app = createTestApp();
    const upstream = slowRemote(app, 400);
    app.services.settings.set("transcribe_queue_size", 1);
    const running = transcribe(app, goforwardWav, "audio/wav");
    await Bun.sleep(50);
    const queued = transcribe(app, goforwardWav, "audio/wav");
    await Bun.sleep(50);
    const refused = await transcribe(app, goforwardWav, "audio/wav");
    expect(refused.res.status).toBe(503);
    expect((refused.body as unknown as { error: { code: string } }).error.code).toBe("busy");
    expect(Number(refused.res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await running).res.status).toBe(200);
    expect((await queued).res.status).toBe(200);
    upstream.stop();
  });
});
