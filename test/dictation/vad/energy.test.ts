import { describe, expect, test } from "bun:test";
import { createVad } from "../../../src/dictation/vad/vad.ts";
import { createTestApp } from "../../helpers/app.ts";
import { goForward, librivoxClips } from "../../helpers/sphinx-testdata.ts";
import { backgrounds, whiteNoise } from "./noise.ts";

// The energy detector, as svc uses it when Silero cannot load (here: a loader that fails as a
// missing model file would).

function fallbackVad() {
  const warnings: { message: string; fields?: Record<string, unknown> }[] = [];
  const vad = createVad({
    logger: { info: () => {}, warn: (message, fields) => warnings.push({ message, fields }) },
    load: async () => {
      throw new Error("ENOENT: no such file or directory, open 'silero_vad_v6.onnx'");
    },
  });
  return { vad, warnings };
}

describe("the energy fallback", () => {
  test("takes over when the model cannot load, and says why once", async () => {
    const { vad, warnings } = fallbackVad();
    expect(await vad.warmUp()).toBe("energy");
    await vad.hasSpeech(goForward());
    await vad.speechRegions(goForward());
    expect(vad.kind).toBe("energy");
    expect(warnings).toEqual([
      {
        message: "Silero VAD could not load; detecting speech by its energy instead",
        fields: { reason: "ENOENT: no such file or directory, open 'silero_vad_v6.onnx'" },
      },
    ]);
  });

  test("finds goforward's words, inside the clip", async () => {
    const { vad } = fallbackVad();
    const regions = await vad.speechRegions(goForward());
    expect(regions.length).toBe(1);
    expect(regions[0]?.startMs).toBeGreaterThan(200);
    expect(regions[0]?.startMs).toBeLessThanOrEqual(470);
    expect(regions[0]?.endMs).toBeGreaterThanOrEqual(2120);
    expect(regions[0]?.endMs).toBeLessThanOrEqual(2790);
  });

  test("finds speech in every LibriVox clip", async () => {
    const { vad } = fallbackVad();
    for (const clip of librivoxClips()) {
      expect({ clip: clip.id, speech: await vad.hasSpeech(clip.pcm) }).toEqual({
        clip: clip.id,
        speech: true,
      });
    }
  });

  test("finds none in silence, steady noise, hum or room tone", async () => {
    const { vad } = fallbackVad();
    expect(await vad.hasSpeech(new Float32Array(16_000 * 3))).toBe(false);
    for (const { name, pcm } of backgrounds(5)) {
      expect({ name, regions: await vad.speechRegions(pcm) }).toEqual({ name, regions: [] });
    }
  });
  test("while it scores 590 s of noise, the event loop gets turns: timers set meanwhile fire", async () => {
    const { vad } = fallbackVad();
    await vad.warmUp();
    const order: string[] = [];
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const scoring = vad.hasSpeech(whiteNoise(590, -20)).then((speech) => order.push(`speech: ${speech}`));
    setTimeout(() => order.push("timer"), 0);
    await scoring;
    clearInterval(timer);
    expect(order).toEqual(["timer", "speech: false"]);
    // About 0.2 s of scoring in 5 ms slices: dozens of turns, not one at the end.
    expect(ticks).toBeGreaterThan(5);
  });
});

describe("SVC_VAD=energy", () => {
  test("the dictation path uses the energy detector from the start, without loading Silero", async () => {
    const { createDictation } = await import("../../../src/dictation/dictation.ts");
    const t = createTestApp();
    const dictation = createDictation({
      services: t.services,
      stores: { whisper: t.models.store },
      hooks: () => [],
      events: t.bus,
      logger: t.logger,
      vad: "energy",
    });
    expect(await dictation.vad.warmUp()).toBe("energy");
    expect(t.logs.some((line) => String(line.msg).includes("could not load"))).toBe(false);
    await dictation.close();
  });
});
