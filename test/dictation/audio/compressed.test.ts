import { describe, expect, test } from "bun:test";
import { warmUpDecoders } from "../../../src/dictation/audio/compressed.ts";
import { decodeAudio } from "../../../src/dictation/audio/decode.ts";
import { measureLevel } from "../../../src/dictation/audio/level.ts";
import { ascii, join } from "../../helpers/wav-builder.ts";
import { silentFlac } from "./flac-writer.ts";
import { expectAppError, fitTone, fixture } from "./signal.ts";

const limits = { maxDurationMs: 60_000 };
const sineOpus = await fixture("sine.opus");

// Each fixture is 1 s of 440 Hz at amplitude 0.5 (test/fixtures/audio/make-fixtures.sh).
// ADTS and fragmented MP4 carry no gapless trim, so they keep the encoder's 1024-sample priming.
describe("decodeAudio with compressed formats", () => {
  test.each([
    ["sine-opus.webm", "webm", 48000, 1000],
    ["sine.opus", "ogg", 48000, 1000],
    ["sine-vorbis.ogg", "ogg", 16000, 1000],
    ["sine.mp3", "mp3", 16000, 1000],
    ["sine.flac", "flac", 16000, 1000],
    ["sine.m4a", "mp4", 16000, 1000],
    ["sine-fragmented.m4a", "mp4", 16000, 1024],
    ["sine.aac", "aac", 32000, 1024],
  ])("decodes %s with its duration and its tone", async (name, format, sourceRate, durationMs) => {
    const decoded = await decodeAudio(await fixture(name), undefined, limits);
    expect(decoded.source).toEqual({ format, sampleRate: sourceRate, channels: 1 });
    expect(Math.abs(decoded.durationMs - durationMs)).toBeLessThan(5);
    expect(decoded.pcm.length).toBe(Math.ceil((decoded.durationMs * 16000) / 1000));
    const tone = fitTone(decoded.pcm, 16000, 440);
    expect(Math.abs(tone.amplitude - 0.5)).toBeLessThan(0.03);
    expect(tone.residualRms).toBeLessThan(0.05);
  });

  test("decodes speech recorded the way MediaRecorder writes WebM/Opus", async () => {
    const decoded = await decodeAudio(await fixture("speech-opus.webm"), "audio/webm;codecs=opus", limits);
    expect(decoded.source.format).toBe("webm");
    expect(decoded.durationMs).toBeGreaterThan(1500);
    expect(decoded.durationMs).toBeLessThan(3000);
    expect(measureLevel(decoded.pcm).loudestWindowDb).toBeGreaterThan(-30);
  });

  test("stops decoding once the limit is passed, without decoding the rest", async () => {
    const minute = join(Array.from({ length: 60 }, () => sineOpus));
    const started = performance.now();
    const whole = await decodeAudio(minute, "audio/ogg", limits);
    const fullCost = performance.now() - started;
    expect(whole.durationMs).toBe(60_000);
    const refused = performance.now();
    const error = await expectAppError(
      decodeAudio(minute, "audio/ogg", { maxDurationMs: 2000 }),
      413,
      "audio_too_long",
    );
    expect(performance.now() - refused).toBeLessThan(fullCost / 3);
    expect(error.message).toContain("at least");
  });

  test("refuses a FLAC decompression bomb from its frame headers, before decoding", async () => {
    const fourHours = silentFlac(8000, 65535, 1758);
    expect(fourHours.length).toBeLessThan(30_000);
    const started = performance.now();
    const error = await expectAppError(
      decodeAudio(fourHours, "audio/flac", { maxDurationMs: 600_000 }),
      413,
      "audio_too_long",
    );
    expect(performance.now() - started).toBeLessThan(200);
    expect(error.details).toEqual({ durationMs: 14_401_316, maxDurationMs: 600_000 });
    // The same writer's small file really decodes: the bomb above is a real one.
    const small = await decodeAudio(silentFlac(8000, 4096, 3), "audio/flac", limits);
    expect(small.durationMs).toBe(1536);
  });

  test("a FLAC damaged mid-stream, which the decoder silently cuts short, is 422 invalid_audio", async () => {
    const bytes = (await fixture("sine.flac")).slice();
    // One byte flipped at 80 %: the decoder stops at that frame and returns the 0.43 s before it.
    const at = Math.floor(bytes.length * 0.8);
    bytes[at] = (bytes[at] ?? 0) ^ 0xff;
    const error = await expectAppError(decodeAudio(bytes, "audio/flac", limits), 422, "invalid_audio");
    expect(error.message).toMatch(
      /^The flac file is damaged: only 0\.\d\d s of its 1\.00 s could be decoded$/,
    );
    expect(error.details).toMatchObject({ declaredFrames: 16000 });
  });

  test("a FLAC whose encoder did not count its samples (STREAMINFO total 0) is not held to a count", async () => {
    const bytes = silentFlac(8000, 4096, 3);
    // STREAMINFO's 36-bit total sits in the last 4 bits of byte 21 and bytes 22-25.
    bytes[21] = (bytes[21] ?? 0) & 0xf0;
    bytes.fill(0, 22, 26);
    expect((await decodeAudio(bytes, "audio/flac", limits)).durationMs).toBe(1536);
  });

  test("refuses an MP4 whose sample table claims 200 million entries, in milliseconds", async () => {
    const bytes = (await fixture("sine.m4a")).slice();
    const at = indexOf(bytes, "stsz");
    const view = new DataView(bytes.buffer);
    view.setUint32(at + 8, 1);
    view.setUint32(at + 12, 200_000_000);
    const started = performance.now();
    await expectAppError(decodeAudio(bytes, "audio/mp4", limits), 422, "invalid_audio");
    expect(performance.now() - started).toBeLessThan(100);
  });

  test("refuses an MP4 that declares more than the limit before decoding", async () => {
    await expectAppError(
      decodeAudio(await fixture("sine.m4a"), "audio/mp4", { maxDurationMs: 500 }),
      413,
      "audio_too_long",
    );
  });

  test("decodes what is there of a truncated WebM and refuses a truncated MP4", async () => {
    const webm = await fixture("sine-opus.webm");
    const partial = await decodeAudio(webm.subarray(0, webm.length / 2), "audio/webm", limits);
    expect(partial.durationMs).toBeGreaterThan(0);
    expect(partial.durationMs).toBeLessThan(1000);
    const m4a = await fixture("sine.m4a");
    await expectAppError(
      decodeAudio(m4a.subarray(0, m4a.length / 2), "audio/mp4", limits),
      422,
      "invalid_audio",
    );
  });

  test("finds an MP3 behind leading junk only when the type says MP3", async () => {
    const junk = join([new Uint8Array(333).fill(0x2a), await fixture("sine.mp3")]);
    expect((await decodeAudio(junk, "audio/mpeg", limits)).source.format).toBe("mp3");
    await expectAppError(decodeAudio(junk, undefined, limits), 415, "unsupported_audio");
  });

  test("refuses Ogg Speex as unsupported", async () => {
    const page = join([ascii("OggS"), new Uint8Array(22), Uint8Array.of(1, 80), ascii("Speex   1.2")]);
    const error = await expectAppError(decodeAudio(page, "audio/ogg", limits), 415, "unsupported_audio");
    expect(error.message).toContain("Speex");
  });

  test.each([
    ["declared WebM", "audio/webm", 422, "invalid_audio"],
    ["declared FLAC", "audio/flac", 422, "invalid_audio"],
    ["text", "text/plain", 415, "unsupported_audio"],
    ["octet-stream", "application/octet-stream", 415, "unsupported_audio"],
    ["no content type", undefined, 415, "unsupported_audio"],
  ])("refuses unrecognisable bytes sent as %s", async (_, type, status, code) => {
    await expectAppError(decodeAudio(ascii("definitely not audio, just text"), type, limits), status, code);
  });

  test("warms up every decoder without error", async () => {
    await warmUpDecoders();
    expect((await decodeAudio(await fixture("sine.opus"), undefined, limits)).durationMs).toBe(1000);
  });
});

function indexOf(bytes: Uint8Array, text: string): number {
  const needle = ascii(text);
  for (let i = 0; i + needle.length <= bytes.length; i++) {
    if (needle.every((byte, k) => bytes[i + k] === byte)) return i;
  }
  throw new Error(`${text} not found`);
}
