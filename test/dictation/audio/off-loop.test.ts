import { describe, expect, test } from "bun:test";
import { type CompressedOptions, decodeCompressed } from "../../../src/dictation/audio/compressed.ts";
import { closeDecodeWorker, decodeOffLoop } from "../../../src/dictation/audio/off-loop.ts";
import { sniffAudio } from "../../../src/dictation/audio/sniff.ts";
import { isAppError } from "../../../src/errors.ts";
import { join } from "../../helpers/wav-builder.ts";
import { fixture } from "./signal.ts";

/** The options decode.ts gives a fixture: its sniffed decoder, and `whole` for FLAC and this MP4. */
async function optionsOf(name: string, maxDurationMs = 60_000) {
  const bytes = await fixture(name);
  const sniffed = sniffAudio(bytes);
  if (sniffed?.kind !== "compressed") throw new Error(`${name} is not compressed audio`);
  const whole = sniffed.format === "flac" || sniffed.format === "mp4";
  const options: CompressedOptions = {
    decoder: sniffed.decoder,
    format: sniffed.format,
    maxDurationMs,
    whole,
  };
  return { bytes, options };
}

/** What was thrown, as the fields a client sees. */
async function failure(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!isAppError(error)) throw new Error(`expected an AppError, got ${String(error)}`);
  return { status: error.status, code: error.code, message: error.message, details: error.details };
}

describe("decodeOffLoop", () => {
  test.each([
    "sine-opus.webm",
    "sine.opus",
    "sine-vorbis.ogg",
    "sine.mp3",
    "sine.flac",
    "sine.m4a",
    "sine.aac",
    "goforward-opus.ogg",
  ])("decodes %s in the worker to exactly what the in-place decode gives", async (name) => {
    const { bytes, options } = await optionsOf(name);
    const inPlace = await decodeCompressed(bytes, options);
    const offLoop = await decodeOffLoop(bytes, options);
    expect(offLoop).toEqual(inPlace);
    expect(Buffer.from(offLoop.pcm.buffer).equals(Buffer.from(inPlace.pcm.buffer))).toBe(true);
  });

  test("answers the same coded errors: bytes its decoder cannot read, a stream past the limit", async () => {
    const { bytes, options } = await optionsOf("sine.opus");
    const minute = join(Array.from({ length: 60 }, () => bytes));
    const cases: [Uint8Array, CompressedOptions][] = [
      [bytes, { ...options, decoder: "webm", format: "webm" }],
      [bytes, { ...options, decoder: "flac", format: "flac", whole: true }],
      [minute, { ...options, maxDurationMs: 2000 }],
    ];
    const codes: string[] = [];
    for (const [input, opts] of cases) {
      const expected = await failure(decodeCompressed(input, opts));
      expect(await failure(decodeOffLoop(input, opts))).toEqual(expected);
      codes.push(expected.code);
    }
    expect(codes).toEqual(["invalid_audio", "invalid_audio", "audio_too_long"]);
  });

  test("sends only the bytes of a view, not the rest of its buffer", async () => {
    const { bytes, options } = await optionsOf("sine.opus");
    const body = new Uint8Array(bytes.length + 2000);
    body.fill(0xaa);
    body.set(bytes, 1000);
    const view = body.subarray(1000, 1000 + bytes.length);
    expect(await decodeOffLoop(view, options)).toEqual(await decodeCompressed(bytes, options));
    // The caller's body is left as it was (copied, not transferred away).
    expect(body.byteLength).toBe(bytes.length + 2000);
  });

  test("the worker is not ended while it decodes; after it ends, the next decode starts a fresh one", async () => {
    const { bytes, options } = await optionsOf("goforward-opus.ogg");
    const running = decodeOffLoop(bytes, options);
    expect(closeDecodeWorker()).toBe(false);
    const first = await running;
    expect(closeDecodeWorker()).toBe(true);
    expect(await decodeOffLoop(bytes, options)).toEqual(first);
  });
});
