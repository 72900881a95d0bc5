import { beforeAll, describe, expect, test } from "bun:test";
import { decodeAudio } from "../../../src/dictation/audio/decode.ts";
import { fitTone, fixture, maxDifference } from "./signal.ts";

const limits = { maxDurationMs: 60_000 };
const decodeFixture = async (name: string) => decodeAudio(await fixture(name), "audio/wav", limits);

// Fixtures are 50 ms of 440 Hz at amplitude 0.5, 16 kHz, written by sox and ffmpeg
// (test/fixtures/audio/make-fixtures.sh). The 64-bit float file is the reference signal.
let reference: Float32Array;

beforeAll(async () => {
  reference = (await decodeFixture("f64.wav")).pcm;
});

describe("decodeAudio with WAV", () => {
  test("reads 64-bit float as the exact 440 Hz sine sox wrote", async () => {
    const decoded = await decodeFixture("f64.wav");
    expect(decoded.pcm.length).toBe(800);
    expect(decoded.durationMs).toBe(50);
    expect(decoded.sampleRate).toBe(16000);
    expect(decoded.source).toEqual({ format: "wav", sampleRate: 16000, channels: 1 });
    const tone = fitTone(decoded.pcm, 16000, 440);
    expect(tone.amplitude).toBeCloseTo(0.5, 3);
    expect(tone.residualRms).toBeLessThan(1e-4);
  });

  // Tolerance = the format's quantisation step (µ-law/A-law: the coarsest segment at 0.5).
  test.each([
    ["u8.wav", 1 / 128 + 1e-6, 1],
    ["s16.wav", 1 / 32768 + 1e-6, 1],
    ["s24-extensible.wav", 1 / 8_388_608 + 1e-7, 1],
    ["s32-extensible.wav", 1e-7, 1],
    ["f32.wav", 1e-7, 1],
    ["mulaw.wav", 0.016, 1],
    ["alaw.wav", 0.016, 1],
    ["s16-3ch-extensible.wav", 1 / 32768 + 1e-6, 3],
    ["f32-6ch-extensible.wav", 1 / 32768 + 1e-6, 6],
  ])("reads %s sample for sample", async (name, tolerance, channels) => {
    const decoded = await decodeFixture(name);
    expect(decoded.source).toEqual({ format: "wav", sampleRate: 16000, channels });
    expect(decoded.durationMs).toBe(50);
    expect(maxDifference(decoded.pcm, reference)).toBeLessThanOrEqual(tolerance);
  });

  test("averages channels: a sine on the left only comes out at half amplitude", async () => {
    const decoded = await decodeFixture("stereo-left-only.wav");
    expect(decoded.source.channels).toBe(2);
    expect(
      maxDifference(
        decoded.pcm,
        reference.map((v) => v / 2),
      ),
    ).toBeLessThan(1 / 32768 + 1e-6);
  });

  test.each([
    ["s16-48k-stereo.wav", 48000, 2],
    ["s16-44k.wav", 44100, 1],
    ["s16-8k.wav", 8000, 1],
  ])("resamples %s to 16 kHz keeping the 1 kHz tone", async (name, rate, channels) => {
    const decoded = await decodeFixture(name);
    expect(decoded.source).toEqual({ format: "wav", sampleRate: rate, channels });
    expect(decoded.durationMs).toBeCloseTo(100, 6);
    expect(decoded.pcm.length).toBe(1600);
    // A residual near zero after fitting exactly 1 kHz proves the frequency survived.
    const tone = fitTone(decoded.pcm, 16000, 1000);
    expect(tone.amplitude).toBeCloseTo(0.5, 2);
    expect(tone.residualRms).toBeLessThan(1e-3);
  });

  test("ignores the content type when the bytes are WAV", async () => {
    for (const type of [undefined, "application/octet-stream", "audio/webm", "text/plain", "audio/pcm"]) {
      const decoded = await decodeAudio(await fixture("s16.wav"), type, limits);
      expect(decoded.source.format).toBe("wav");
      expect(decoded.pcm.length).toBe(800);
    }
  });
});
