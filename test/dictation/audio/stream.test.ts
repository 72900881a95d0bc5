import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openAudioStream, type StreamFormat, sameStreamFormat } from "../../../src/dictation/audio/index.ts";
import { concat } from "../../../src/dictation/audio/resample.ts";

// The one stream decoder live dictation reads its audio through, whichever door it came in by.

const fixtures = join(import.meta.dir, "..", "..", "fixtures", "audio");

async function decodeInPieces(format: StreamFormat, bytes: Uint8Array, piece: number): Promise<Float32Array> {
  const stream = openAudioStream(format, 60_000);
  const parts: Promise<Float32Array>[] = [];
  for (let at = 0; at < bytes.length; at += piece) parts.push(stream.push(bytes.subarray(at, at + piece)));
  parts.push(stream.end());
  return concat(await Promise.all(parts));
}

describe("openAudioStream", () => {
  test("raw PCM cut anywhere, mid-sample and mid-frame, decodes to the same samples as whole", async () => {
    const format: StreamFormat = { encoding: "f32le", sampleRate: 48_000, channels: 2 };
    const frames = Float32Array.from({ length: 48_000 }, (_, i) => Math.sin(i / 9) * 0.5);
    const bytes = new Uint8Array(frames.buffer);
    const whole = await decodeInPieces(format, bytes, bytes.length);
    expect(whole.length).toBe(8000);
    for (const piece of [3, 997, 4801]) expect(await decodeInPieces(format, bytes, piece)).toEqual(whole);
  });

  test("a piece's bytes are read before push returns: the caller may reuse them", async () => {
    const stream = openAudioStream({ encoding: "s16le", sampleRate: 16_000, channels: 1 }, 60_000);
    const buffer = new Uint8Array(new Int16Array([16384, 16384, 16384]).buffer);
    // Three bytes: a whole sample and half of the next, which waits for its other byte.
    const first = stream.push(buffer.subarray(0, 3));
    buffer.fill(0);
    const second = stream.push(new Uint8Array([0x40, 0, 0x40]));
    expect([...(await first), ...(await second)]).toEqual([0.5, 0.5, 0.5]);
  });

  test("knows raw PCM's duration from its bytes, and a codec's only from decoding", () => {
    const pcm = openAudioStream({ encoding: "s16le", sampleRate: 16_000, channels: 2 }, 60_000);
    expect(pcm.secondsIn(64_000)).toBe(1);
    const opus = openAudioStream({ container: "ogg" }, 60_000);
    expect(opus.secondsIn(64_000)).toBe(0);
    opus.close();
  });

  test("WebM/Opus in MediaRecorder-sized chunks decodes as the whole file does", async () => {
    const bytes = new Uint8Array(await Bun.file(join(fixtures, "goforward-opus.webm")).arrayBuffer());
    const whole = await decodeInPieces({ container: "webm" }, bytes, bytes.length);
    const pieces = await decodeInPieces({ container: "webm" }, bytes, 997);
    expect(whole.length).toBeGreaterThan(16_000 * 2);
    expect(pieces.length).toBe(whole.length);
  });

  test("a stream takes on only bytes of its own format", () => {
    const pcm16: StreamFormat = { encoding: "s16le", sampleRate: 16_000, channels: 1 };
    expect(sameStreamFormat(pcm16, { ...pcm16 })).toBe(true);
    expect(sameStreamFormat(pcm16, { ...pcm16, encoding: "s8" })).toBe(false);
    expect(sameStreamFormat({ container: "webm" }, { container: "webm" })).toBe(true);
    expect(sameStreamFormat({ container: "webm" }, { container: "ogg" })).toBe(false);
    expect(sameStreamFormat({ container: "webm" }, pcm16)).toBe(false);
  });
});
