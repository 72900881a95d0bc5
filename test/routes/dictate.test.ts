import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { resample } from "../../src/dictation/audio/resample.ts";
import { createTestApp } from "../helpers/app.ts";
import {
  connect,
  type DictateClient,
  type DictateServer,
  serveDictation,
  streamFrames,
  toPcm16,
} from "../helpers/dictate-server.ts";
import { rawRequest } from "../helpers/raw-http.ts";
import { goForward, librivoxClips } from "../helpers/sphinx-testdata.ts";

// GET /api/dictate over a real WebSocket to a real Bun.serve, with the sphinx engine on the
// pocketsphinx goforward clip ("go forward ten meters", 16 kHz mono).

let served: DictateServer | undefined;
afterEach(async () => {
  await served?.stop();
  served = undefined;
});

function serve(settings: Record<string, unknown> = {}, options: Parameters<typeof serveDictation>[0] = {}) {
  served = serveDictation(options);
  served.app.services.settings.set("stt_engine", "sphinx");
  for (const [key, value] of Object.entries(settings)) served.app.services.settings.set(key, value);
  return served;
}

const clipMs = (goForward().length / 16_000) * 1000;
const fixtures = join(import.meta.dir, "..", "fixtures", "audio");
/** 100 ms of 16 kHz pcm16. */
const frame100ms = 3200;

async function started(server: DictateServer, start: Record<string, unknown>): Promise<DictateClient> {
  const client = connect(server.url);
  await client.opened;
  client.json({ type: "start", ...start });
  await client.next("ready");
  return client;
}

async function expectError(client: DictateClient, code: string, closeCode: number) {
  const error = await client.next("error");
  expect(error).toMatchObject({ code });
  expect(typeof error.message).toBe("string");
  expect((await client.closed).code).toBe(closeCode);
}

describe("GET /api/dictate (live dictation)", () => {
  test("the goforward clip in 100 ms frames gives segments, then the batch text as final", async () => {
    const server = serve();
    const batch = await server.app.request("/api/transcribe", {
      method: "POST",
      body: encodeWav(goForward()),
      headers: { "content-type": "audio/wav" },
    });
    const expected = (await batch.json()) as { text: string };
    expect(expected.text).toBe("Go forward ten meters");

    const client = await started(server, { format: "pcm16", sampleRate: 16_000 });
    // A second of silence after the speech closes its last region before stop.
    await streamFrames(client, toPcm16(goForward()), frame100ms, 5);
    await streamFrames(client, toPcm16(new Float32Array(16_000)), frame100ms, 5);
    await client.next("segment");
    client.json({ type: "stop" });
    const final = await client.next("final");
    expect((await client.closed).code).toBe(1000);

    expect(final).toMatchObject({ text: expected.text, engine: "sphinx", model: "en-us", language: "en" });
    expect(final.raw).toBe("go forward ten meters");
    expect(typeof final.historyId).toBe("number");
    expect(Object.keys(final.timings as object).sort()).toEqual(
      ["cleanup", "decode", "dictionary", "engine", "plugins", "queue"].sort(),
    );
    const types = client.messages.map((m) => m.type);
    expect(types[0]).toBe("ready");
    expect(types.at(-1)).toBe("final");
    const segments = client.messages.filter((m) => m.type === "segment");
    expect(segments.length).toBeGreaterThan(0);
    expect(segments.map((s) => s.text).join(" ")).toBe("go forward ten meters");
    for (const segment of segments) {
      expect(segment.start as number).toBeGreaterThanOrEqual(0);
      expect(segment.end as number).toBeGreaterThan(segment.start as number);
      expect(segment.end as number).toBeLessThanOrEqual(clipMs);
    }
    // History holds the dictation once: the batch upload and this one.
    const history = (await (await server.app.request("/api/history")).json()) as { items: unknown[] };
    expect(history.items).toHaveLength(2);
  });

  test("streamed at real-time pace, partials (non-empty guesses) arrive before final", async () => {
    const server = serve();
    // Loaded first, as a running server has them: a guess waiting for a model load comes too late.
    await server.app.dictation.warmUp();
    expect(server.app.dictation.vad.kind).not.toBeNull();
    const client = await started(server, { format: "pcm16", sampleRate: 16_000 });
    await streamFrames(client, toPcm16(goForward()), frame100ms, 100);
    client.json({ type: "stop" });
    const final = await client.next("final");
    expect(final.text).toBe("Go forward ten meters");
    const types = client.messages.map((m) => m.type);
    expect(types).toContain("partial");
    expect(types.indexOf("partial")).toBeLessThan(types.indexOf("final"));
    for (const partial of client.messages.filter((m) => m.type === "partial")) {
      expect(typeof partial.text).toBe("string");
      expect(partial.text).not.toBe("");
    }
  });

  test("f32 stereo at 48 kHz is mixed down and resampled to the same text", async () => {
    const server = serve();
    const mono = resample(goForward(), 16_000, 48_000);
    const stereo = new Float32Array(mono.length * 2);
    for (let i = 0; i < mono.length; i++) {
      stereo[2 * i] = mono[i] ?? 0;
      stereo[2 * i + 1] = mono[i] ?? 0;
    }
    const client = await started(server, { format: "f32", sampleRate: 48_000, channels: 2 });
    // 100 ms of 48 kHz stereo f32.
    await streamFrames(client, new Uint8Array(stereo.buffer), 4800 * 2 * 4);
    client.json({ type: "stop" });
    const final = await client.next("final");
    expect(final.text).toBe("Go forward ten meters");
    expect(final.audioDurationMs as number).toBeCloseTo(clipMs, -1);
  });

  for (const [format, file] of [
    ["webm-opus", "goforward-opus.webm"],
    ["ogg-opus", "goforward-opus.ogg"],
  ] as const) {
    test(`${format} in MediaRecorder-sized chunks, cut anywhere, gives the batch text`, async () => {
      const server = serve();
      const bytes = new Uint8Array(await Bun.file(join(fixtures, file)).arrayBuffer());
      const batch = await server.app.request("/api/transcribe", { method: "POST", body: bytes });
      expect(batch.status).toBe(200);
      const expected = (await batch.json()) as { text: string; audioDurationMs: number };
      expect(expected.text).toBe("Go forward ten meters");
      // No sampleRate: the stream says its own. 997 bytes cut frames and headers mid-way.
      const client = await started(server, { format });
      await streamFrames(client, bytes, 997, 5);
      client.json({ type: "stop" });
      const final = await client.next("final");
      expect(final.text).toBe(expected.text);
      expect(final.audioDurationMs as number).toBeCloseTo(expected.audioDurationMs, -2);
      expect(client.messages.some((m) => m.type === "segment")).toBe(true);
    });
  }

  test("webm-opus bytes that are not WebM are answered invalid_audio and closed 1008", async () => {
    const client = await started(serve(), { format: "webm-opus" });
    client.ws.send(new TextEncoder().encode("this is not a webm stream at all, only words ".repeat(40)));
    client.json({ type: "stop" });
    await expectError(client, "invalid_audio", 1008);
  });

  test("pcm16 without a sampleRate is answered invalid_request", async () => {
    const client = connect(serve().url);
    await client.opened;
    client.json({ type: "start", format: "pcm16" });
    await expectError(client, "invalid_request", 1008);
  });

  test("three times real time is within the default pace; the text is the same", async () => {
    const client = await started(serve(), { format: "pcm16", sampleRate: 16_000 });
    await streamFrames(client, toPcm16(goForward()), frame100ms, 33);
    client.json({ type: "stop" });
    expect((await client.next("final")).text).toBe("Go forward ten meters");
  });

  test("audio faster than dictate_max_speed × real time is answered too_fast; others go on", async () => {
    const server = serve({ dictate_max_speed: 2 });
    const calm = await started(server, { format: "pcm16", sampleRate: 16_000 });
    const hasty = await started(server, { format: "pcm16", sampleRate: 16_000 });
    // 6 s at once: past the 2 s a client may send in its first second at 2×.
    await streamFrames(hasty, toPcm16(new Float32Array(16_000 * 6)), frame100ms);
    await expectError(hasty, "too_fast", 1008);
    await streamFrames(calm, toPcm16(goForward()), frame100ms, 60);
    calm.json({ type: "stop" });
    expect((await calm.next("final")).text).toBe("Go forward ten meters");
  });

  test("beside two long file jobs, a live piece goes before the queued file's window", async () => {
    const server = serve({}, { maxBodyBytes: 4 * 1024 * 1024 });
    await server.app.dictation.warmUp();
    // Two uploads of 31 s of LibriVox speech: each two windows (30 s, 1 s) in the batch lane, a
    // 30 s window being about 5 s of sphinx here. The first one's window runs; the second's waits.
    const clips = librivoxClips().map((clip) => clip.pcm);
    const long = new Float32Array(16_000 * 31);
    for (let at = 0, i = 0; at < long.length; i++) {
      const clip = clips[i % clips.length] ?? new Float32Array(0);
      long.set(clip.subarray(0, long.length - at), at);
      at += clip.length;
    }
    const upload = () =>
      server.app
        .request("/api/transcribe", {
          method: "POST",
          body: encodeWav(long),
          headers: { "content-type": "audio/wav" },
        })
        .then(async (res) => {
          expect(res.status).toBe(200);
          return (await res.json()) as { timings: { engine: number } };
        });
    const files = [upload(), upload()];
    // Both are decoded, one window is with the engine and one waits, before the dictation starts.
    await Bun.sleep(500);
    const client = await started(server, { format: "pcm16", sampleRate: 16_000 });
    await streamFrames(client, toPcm16(goForward()), frame100ms, 100);
    await streamFrames(client, toPcm16(new Float32Array(8000)), frame100ms, 100);
    client.json({ type: "stop" });
    const final = await client.next("final");
    expect(final.text).toBe("Go forward ten meters");
    const [first] = await Promise.all(files);
    // The piece waited for the window in progress, then went before the queued one: its wait from
    // stop is less than one 30 s window takes (in the queue's order it would be more than one).
    const windowMs = (first?.timings.engine ?? 0) * (30 / 31);
    expect(final.durationMs as number).toBeLessThan(windowMs);
  }, 60_000);

  test("cancel closes 1000 with no final and nothing recorded", async () => {
    const server = serve();
    const client = await started(server, { format: "pcm16", sampleRate: 16_000 });
    await streamFrames(client, toPcm16(goForward()).subarray(0, 16_000 * 2), frame100ms);
    client.json({ type: "cancel" });
    expect((await client.closed).code).toBe(1000);
    expect(client.messages.map((m) => m.type)).not.toContain("final");
    await Bun.sleep(50);
    const history = (await (await server.app.request("/api/history")).json()) as { items: unknown[] };
    expect(history.items).toEqual([]);
  });

  test("a client that leaves mid-stream leaves nothing recorded and the next session works", async () => {
    const server = serve({}, { operator: { dictateMaxSessions: 1 } });
    const first = await started(server, { format: "pcm16", sampleRate: 16_000 });
    await streamFrames(first, toPcm16(goForward()), frame100ms);
    first.ws.close();
    await first.closed;
    await Bun.sleep(50);
    const second = await started(server, { format: "pcm16", sampleRate: 16_000 });
    await streamFrames(second, toPcm16(goForward()), frame100ms);
    second.json({ type: "stop" });
    expect((await second.next("final")).text).toBe("Go forward ten meters");
    const history = (await (await server.app.request("/api/history")).json()) as { items: unknown[] };
    expect(history.items).toHaveLength(1);
  });

  test("a client that leaves aborts every piece it queued, and no more are asked for", async () => {
    const signals: AbortSignal[] = [];
    served = serveDictation({
      wrap: (transcriber) => ({
        ...transcriber,
        recognisePiece: (input) => {
          if (input.signal) signals.push(input.signal);
          return transcriber.recognisePiece(input);
        },
      }),
    });
    served.app.services.settings.set("stt_engine", "sphinx");
    // Sent faster than real time, which this test is not about.
    served.app.services.settings.set("dictate_max_speed", 1000);
    const client = await started(served, { format: "pcm16", sampleRate: 16_000 });
    // Three utterances with pauses between them: pieces close while the engine is busy.
    const speech = toPcm16(goForward());
    const pause = toPcm16(new Float32Array(8000));
    for (let i = 0; i < 3; i++) {
      await streamFrames(client, speech, frame100ms);
      await streamFrames(client, pause, frame100ms);
    }
    // The detector loads on first use: wait for the first piece to reach the transcriber.
    for (let waited = 0; signals.length === 0 && waited < 10_000; waited += 20) await Bun.sleep(20);
    expect(signals.length).toBeGreaterThan(0);
    client.ws.close();
    await client.closed;
    const asked = signals.length;
    await Bun.sleep(300);
    expect(signals.length).toBe(asked);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
  });

  test("malformed JSON is answered invalid_json and closed 1008", async () => {
    const client = connect(serve().url);
    await client.opened;
    client.ws.send("{not json");
    await expectError(client, "invalid_json", 1008);
  });

  test("an unknown message type is answered invalid_request and closed 1008", async () => {
    const client = connect(serve().url);
    await client.opened;
    client.json({ type: "pause" });
    await expectError(client, "invalid_request", 1008);
  });

  test("audio before start is answered invalid_request and closed 1008", async () => {
    const client = connect(serve().url);
    await client.opened;
    client.ws.send(new Uint8Array(3200));
    await expectError(client, "invalid_request", 1008);
  });

  test("pcm16 frames that end mid-sample carry the byte to the next frame: the same text", async () => {
    // 3201 bytes a frame: every frame but the last ends halfway through a sample (as Wyoming's do).
    const client = await started(serve(), { format: "pcm16", sampleRate: 16_000 });
    await streamFrames(client, toPcm16(goForward()), frame100ms + 1, 5);
    client.json({ type: "stop" });
    const final = await client.next("final");
    expect(final.text).toBe("Go forward ten meters");
    expect(final.audioDurationMs as number).toBeCloseTo(clipMs, -1);
  });

  test("a format it does not stream is answered unsupported_audio and closed 1003", async () => {
    const client = connect(serve().url);
    await client.opened;
    client.json({ type: "start", format: "mp3", sampleRate: 16_000 });
    await expectError(client, "unsupported_audio", 1003);
  });

  test("a sample rate out of range is answered invalid_request", async () => {
    const client = connect(serve().url);
    await client.opened;
    client.json({ type: "start", format: "pcm16", sampleRate: 100 });
    await expectError(client, "invalid_request", 1008);
  });

  test("a frame over SVC_DICTATE_MAX_FRAME_SIZE is answered payload_too_large and closed 1009", async () => {
    const client = await started(serve({}, { operator: { dictateMaxFrameBytes: 4096 } }), {
      format: "pcm16",
      sampleRate: 16_000,
    });
    client.ws.send(new Uint8Array(4098));
    await expectError(client, "payload_too_large", 1009);
  });

  test("a session started beyond SVC_DICTATE_MAX_SESSIONS is refused busy with 1013; the first goes on", async () => {
    const server = serve({}, { operator: { dictateMaxSessions: 1 } });
    const first = await started(server, { format: "pcm16", sampleRate: 16_000 });
    const second = connect(server.url);
    await second.opened;
    second.json({ type: "start", format: "pcm16", sampleRate: 16_000 });
    await expectError(second, "busy", 1013);
    await streamFrames(first, toPcm16(goForward()), frame100ms);
    first.json({ type: "stop" });
    expect((await first.next("final")).text).toBe("Go forward ten meters");
  });

  test("sockets that never send start do not count: a started session goes ahead of them", async () => {
    const server = serve({}, { operator: { dictateMaxSessions: 2 } });
    const idle = Array.from({ length: 6 }, () => connect(server.url));
    await Promise.all(idle.map((client) => client.opened));
    const client = await started(server, { format: "pcm16", sampleRate: 16_000 });
    await streamFrames(client, toPcm16(goForward()), frame100ms);
    client.json({ type: "stop" });
    expect((await client.next("final")).text).toBe("Go forward ten meters");
    for (const socket of idle) socket.ws.close();
  });

  test("a socket that sends no start within dictate_start_timeout_seconds is closed request_timeout", async () => {
    const server = serve({ dictate_start_timeout_seconds: 1, dictate_idle_timeout_seconds: 60 });
    const client = connect(server.url);
    await client.opened;
    const began = performance.now();
    await expectError(client, "request_timeout", 1008);
    expect(performance.now() - began).toBeGreaterThan(900);
    expect(performance.now() - began).toBeLessThan(5000);
  });

  test("audio past dictate_max_session_seconds is answered audio_too_long", async () => {
    const client = await started(serve({ dictate_max_session_seconds: 5, dictate_max_speed: 1000 }), {
      format: "pcm16",
      sampleRate: 16_000,
    });
    await streamFrames(client, toPcm16(new Float32Array(16_000 * 6)), frame100ms);
    await expectError(client, "audio_too_long", 1008);
  });

  test("a session that receives nothing for dictate_idle_timeout_seconds is ended request_timeout", async () => {
    const client = await started(serve({ dictate_idle_timeout_seconds: 1 }), {
      format: "pcm16",
      sampleRate: 16_000,
    });
    const began = performance.now();
    await expectError(client, "request_timeout", 1008);
    expect(performance.now() - began).toBeGreaterThan(900);
  });
});

describe("GET /api/dictate refusals", () => {
  const handshake = (port: number, host: string, origin?: string) =>
    rawRequest(port, [
      "GET /api/dictate HTTP/1.1",
      `Host: ${host}`,
      "Upgrade: websocket",
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
      "Sec-WebSocket-Version: 13",
      ...(origin ? [`Origin: ${origin}`] : []),
    ]);

  test("an upgrade from an untrusted Origin is refused 403 untrusted_origin", async () => {
    const server = serve();
    const { status, body } = await handshake(server.port, `127.0.0.1:${server.port}`, "http://evil.example");
    expect(status).toBe(403);
    expect(body).toContain("untrusted_origin");
  });

  test("an upgrade from another port of this machine is refused 403 cross_origin_request", async () => {
    // A WebSocket has no preflight: a page on any local dev server could dictate into history.
    const server = serve();
    for (const origin of ["http://localhost:5173", "http://127.0.0.1:8080", "http://[::1]:3000"]) {
      const { status, body } = await handshake(server.port, `127.0.0.1:${server.port}`, origin);
      expect({ origin, status }).toEqual({ origin, status: 403 });
      expect(body).toContain("cross_origin_request");
    }
  });

  test("an upgrade from app:// or an SVC_TRUSTED_ORIGINS entry is accepted", async () => {
    const server = serve({}, { trustedOrigins: ["https://dictation.example"] });
    for (const origin of ["app://svc", "https://dictation.example"]) {
      const client = connect(server.url, { Origin: origin });
      await client.opened;
      client.json({ type: "start", format: "pcm16", sampleRate: 16_000 });
      expect(await client.next("ready")).toEqual({ type: "ready" });
      client.ws.close();
    }
  });

  test("an upgrade to an untrusted Host is refused 403 untrusted_host", async () => {
    const server = serve();
    const { status, body } = await handshake(server.port, "evil.example");
    expect(status).toBe(403);
    expect(body).toContain("untrusted_host");
  });

  test("an upgrade from the server's own origin is accepted", async () => {
    const server = serve();
    const client = connect(server.url, { Origin: `http://127.0.0.1:${server.port}` });
    await client.opened;
    client.json({ type: "start", format: "pcm16", sampleRate: 16_000 });
    expect(await client.next("ready")).toEqual({ type: "ready" });
  });

  test("without an upgrade it answers 426 upgrade_required", async () => {
    const res = await createTestApp().request("/api/dictate");
    expect(res.status).toBe(426);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("upgrade_required");
  });
});
