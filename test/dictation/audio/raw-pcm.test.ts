import { describe, expect, test } from "bun:test";
import { decodeAudio } from "../../../src/dictation/audio/decode.ts";
import { join, s16, sine } from "../../helpers/wav-builder.ts";
import { expectAppError, fitTone, maxDifference } from "./signal.ts";

const limits = { maxDurationMs: 60_000 };
const tone = sine(16000, 440, 0.1);
const quantised = Float32Array.from(s16ToFloats(s16(tone)));

function s16ToFloats(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: bytes.length / 2 }, (_, i) => view.getInt16(i * 2, true) / 32768);
}

function bigEndian(bytes: Uint8Array): Uint8Array {
  const swapped = new Uint8Array(bytes.length);
  for (let i = 0; i + 1 < bytes.length; i += 2) {
    swapped[i] = bytes[i + 1] ?? 0;
    swapped[i + 1] = bytes[i] ?? 0;
  }
  return swapped;
}

describe("decodeAudio with raw PCM", () => {
  test("reads audio/pcm as 16 kHz mono s16le by default", async () => {
    const decoded = await decodeAudio(s16(tone), "audio/pcm", limits);
    expect(decoded.source).toEqual({ format: "pcm", sampleRate: 16000, channels: 1 });
    expect(maxDifference(decoded.pcm, quantised)).toBe(0);
  });

  test("honours rate= and channels=, downmixing and resampling", async () => {
    const left = sine(8000, 1000, 0.2);
    const interleaved = new Float32Array(left.length * 2);
    left.forEach((value, i) => {
      interleaved[i * 2] = value;
    });
    const type = 'audio/pcm; rate="8000"; channels=2';
    const decoded = await decodeAudio(s16(interleaved), type, limits);
    expect(decoded.source).toEqual({ format: "pcm", sampleRate: 8000, channels: 2 });
    expect(decoded.durationMs).toBe(200);
    expect(decoded.pcm.length).toBe(3200);
    expect(fitTone(decoded.pcm, 16000, 1000).amplitude).toBeCloseTo(0.25, 2);
  });

  test("reads audio/L16 as big-endian (RFC 3551)", async () => {
    const decoded = await decodeAudio(bigEndian(s16(tone)), "audio/L16;rate=16000;channels=1", limits);
    expect(maxDifference(decoded.pcm, quantised)).toBe(0);
    const misread = await decodeAudio(s16(tone), "audio/L16;rate=16000", limits);
    expect(maxDifference(misread.pcm, quantised)).toBeGreaterThan(0.1);
  });

  test("reads G.711 µ-law sent as audio/PCMU at 8 kHz", async () => {
    const silenceCode = 0xff;
    const decoded = await decodeAudio(new Uint8Array(800).fill(silenceCode), "audio/PCMU", limits);
    expect(decoded.source.sampleRate).toBe(8000);
    expect(decoded.durationMs).toBe(100);
    expect(decoded.pcm.every((value) => value === 0)).toBe(true);
  });

  test("ignores a trailing partial sample", async () => {
    const decoded = await decodeAudio(join([s16(tone), new Uint8Array([1])]), "audio/pcm", limits);
    expect(decoded.pcm.length).toBe(tone.length);
  });

  test("refuses more audio than the limit from the byte count alone", async () => {
    const error = await expectAppError(
      decodeAudio(new Uint8Array(32_002), "audio/pcm", { maxDurationMs: 1000 }),
      413,
      "audio_too_long",
    );
    expect(error.message).toContain("1.00 s");
  });

  test.each([
    ["audio/L16 without a rate", "audio/L16"],
    ["a rate that is not a number", "audio/pcm;rate=fast"],
    ["a zero rate", "audio/pcm;rate=0"],
    ["a rate above 384 kHz", "audio/pcm;rate=1000000"],
    ["zero channels", "audio/pcm;channels=0"],
    ["a thousand channels", "audio/pcm;channels=1000"],
  ])("refuses %s with 415 unsupported_audio", async (_, type) => {
    const error = await expectAppError(decodeAudio(s16(tone), type, limits), 415, "unsupported_audio");
    expect(error.message).toMatch(/rate|channels/);
  });

  test("refuses a body too short to hold one frame", async () => {
    await expectAppError(
      decodeAudio(new Uint8Array(3), "audio/pcm;channels=2", limits),
      422,
      "invalid_audio",
    );
    await expectAppError(decodeAudio(new Uint8Array(0), "audio/pcm", limits), 422, "invalid_audio");
  });

  test("does not mistake PCM that starts with an MPEG-like sync for MP3", async () => {
    const noise = Uint8Array.from([0xff, 0xfb, 0x90, 0x44, ...s16(tone)]);
    const decoded = await decodeAudio(noise, "audio/pcm", limits);
    expect(decoded.source.format).toBe("pcm");
  });
});
