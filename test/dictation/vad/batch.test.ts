import { describe, expect, test } from "bun:test";
import type { SpeechEngine } from "../../../src/dictation/engines/types.ts";
import { createScheduler } from "../../../src/dictation/scheduler.ts";
import { createTranscriber, type TranscriberDeps } from "../../../src/dictation/transcriber.ts";
import { createVad } from "../../../src/dictation/vad/vad.ts";
import { createDictationApi } from "../../../src/plugins/hook-api.ts";
import { appErrorOf } from "../../helpers/errors.ts";
import { goForward } from "../../helpers/sphinx-testdata.ts";
import { hum, pinkNoise, roomTone, whiteNoise, withNoise } from "./noise.ts";

// The batch path's use of the detector: the transcriber with a fake engine that counts its calls,
// deciding on real audio with the real Silero detector (or a detector that fails).

const vad = createVad();

function transcriber(pcm: Float32Array, hasSpeech: TranscriberDeps["hasSpeech"], timeoutMs = 10_000) {
  const calls: number[] = [];
  const warnings: string[] = [];
  const engine: SpeechEngine = {
    id: "whisper",
    async transcribe(audio) {
      calls.push(audio.length);
      return { text: "go forward ten meters", segments: [], language: "en" };
    },
    close: async () => {},
  };
  const deps: TranscriberDeps = {
    decode: async () => ({ pcm, durationMs: pcm.length / 16 }),
    engine: async () => ({ engine, id: "whisper", model: "fake", clean: (text) => text }),
    scheduler: createScheduler({ maxQueued: () => 4, estimateMs: () => 100, concurrency: () => 1 }),
    postProcess: async ({ text }) => ({
      text,
      deterministic: text,
      timings: { cleanup: 0, dictionary: 0, plugins: 0 },
      format: null,
      disposition: "deliver",
      reason: null,
      consumedBy: null,
      mode: "paste",
    }),
    newDictation: () => createDictationApi(),
    record: () => null,
    dictionary: (text) => text,
    publish: () => {},
    limits: () => ({
      maxAudioMs: 600_000,
      timeoutMs,
      language: "en",
      hookTimeoutMs: 100,
      engine: "whisper",
      modelOf: () => "base.en",
    }),
    hasSpeech,
    warn: (message) => warnings.push(message),
  };
  return {
    transcribe: () => createTranscriber(deps).transcribe({ audio: new Uint8Array(4) }),
    calls,
    warnings,
  };
}

const detect: TranscriberDeps["hasSpeech"] = (pcm, signal) => vad.hasSpeech(pcm, signal);

describe("the batch path with the voice-activity detector", () => {
  test("noise-only audio answers empty text and never reaches the engine", async () => {
    const noises = {
      white: whiteNoise(4, -30),
      pink: pinkNoise(4, -25),
      hum: hum(4, -20),
      "room tone": roomTone(4, -30),
    };
    for (const [name, pcm] of Object.entries(noises)) {
      const t = transcriber(pcm, detect);
      const result = await t.transcribe();
      expect({ name, text: result.text, raw: result.raw, calls: t.calls }).toEqual({
        name,
        text: "",
        raw: "",
        calls: [],
      });
    }
  }, 30_000);

  test("speech, clean or under noise at 10 dB SNR, reaches the engine whole", async () => {
    for (const pcm of [goForward(), withNoise(goForward(), 10)]) {
      const t = transcriber(pcm, detect);
      expect((await t.transcribe()).text).toBe("go forward ten meters");
      expect(t.calls).toEqual([pcm.length]);
    }
  });

  test("a detector that fails lets the audio through, with a warning", async () => {
    const t = transcriber(whiteNoise(2, -30), async () => {
      throw new Error("onnxruntime: session run failed");
    });
    expect((await t.transcribe()).text).toBe("go forward ten meters");
    expect(t.calls).toHaveLength(1);
    expect(t.warnings).toEqual(["voice activity detection failed; the audio goes to the engine as is"]);
  });

  test("near-silent audio is not even shown to the detector", async () => {
    let asked = 0;
    const t = transcriber(new Float32Array(16_000), async () => {
      asked++;
      return true;
    });
    expect((await t.transcribe()).text).toBe("");
    expect({ asked, calls: t.calls.length }).toEqual({ asked: 0, calls: 0 });
  });

  test("a detection that outlasts the time limit is stopped with 504 timeout", async () => {
    const t = transcriber(
      whiteNoise(2, -30),
      (_pcm, signal) =>
        new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
      50,
    );
    const error = await appErrorOf(t.transcribe());
    expect({ status: error.status, code: error.code }).toEqual({ status: 504, code: "timeout" });
    expect(t.calls).toEqual([]);
  });
});
