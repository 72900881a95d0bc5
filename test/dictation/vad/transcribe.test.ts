import { describe, expect, test } from "bun:test";
import { encodeWav } from "../../../src/dictation/audio/index.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { fakeSpeechServer, useSpeechServer } from "../../helpers/speech-server.ts";
import { goForward } from "../../helpers/sphinx-testdata.ts";
import { pinkNoise, whiteNoise } from "./noise.ts";

// POST /api/transcribe through the app as main.ts builds it: the real detector in front of the
// real sphinx engine, and of a remote engine (a local server) that counts what reaches it.

type Body = { text: string; raw: string; durationMs: number; audioDurationMs: number };

/** Counts the recognitions that reach the app's engine (the engine itself is unchanged). */
function countEngineCalls(app: TestApp): { calls: number } {
  const counter = { calls: 0 };
  const current = app.dictation.engines.current.bind(app.dictation.engines);
  app.dictation.engines.current = async (...args) => {
    const active = await current(...args);
    const { engine } = active;
    return {
      ...active,
      engine: {
        ...engine,
        transcribe: (...call) => {
          counter.calls++;
          return engine.transcribe(...call);
        },
      },
    };
  };
  return counter;
}

async function transcribe(app: TestApp, pcm: Float32Array): Promise<Body> {
  const res = await app.request("/api/transcribe", {
    method: "POST",
    body: encodeWav(pcm),
    headers: { "content-type": "audio/wav" },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Body;
}

describe("POST /api/transcribe with the voice-activity detector", () => {
  test("sphinx: goforward still transcribes; 10 s of noise answers empty text fast, sphinx never asked", async () => {
    const app = createTestApp();
    app.services.settings.set("stt_engine", "sphinx");
    const counter = countEngineCalls(app);
    await app.dictation.warmUp();
    expect(app.logs).toContainEqual(
      expect.objectContaining({ msg: "voice activity detector loaded", detector: "silero" }),
    );
    expect((await transcribe(app, goForward())).raw).toBe("go forward ten meters");
    expect(counter.calls).toBe(1);
    for (const noise of [whiteNoise(10, -30), pinkNoise(10, -25)]) {
      const body = await transcribe(app, noise);
      expect(body).toMatchObject({ text: "", raw: "", audioDurationMs: 10_000 });
      // Scoring 10 s takes some 0.1–0.3 s here: a loose bound, for a shared machine.
      expect(body.durationMs).toBeLessThan(1000);
    }
    expect(counter.calls).toBe(1);
  }, 30_000);

  test("noise never reaches a remote engine; speech does", async () => {
    using upstream = fakeSpeechServer("go forward ten meters");
    const app = createTestApp();
    useSpeechServer(app, upstream);
    expect((await transcribe(app, whiteNoise(3, -25))).text).toBe("");
    expect((await transcribe(app, pinkNoise(3, -20))).text).toBe("");
    expect(upstream.calls).toBe(0);
    expect((await transcribe(app, goForward())).raw).toBe("go forward ten meters");
    expect(upstream.calls).toBe(1);
  });
});
