import { describe, expect, test } from "bun:test";
import { type AudioStream, openAudioStream, sameStreamFormat } from "../../src/dictation/audio/index.ts";
import { concat } from "../../src/dictation/audio/resample.ts";
import { type AudioFormat, pcmLayoutOf } from "../../src/wyoming/events.ts";

// Wyoming's audio formats through svc's one stream decoder, as a live dictation reads them.

const createChunkDecoder = (format: AudioFormat) => openAudioStream(pcmLayoutOf(format), Infinity);

const decodeAll = async (decoder: AudioStream, chunks: Uint8Array[]) =>
  concat(await Promise.all([...chunks.map((chunk) => decoder.push(chunk)), decoder.end()]));

describe("Wyoming audio chunks through the stream decoder", () => {
  test("16 kHz 16-bit mono passes through as floats", async () => {
    const decoder = createChunkDecoder({ rate: 16_000, width: 2, channels: 1 });
    const bytes = new Uint8Array(new Int16Array([0, 16384, -32768, 32767]).buffer);
    expect([...(await decodeAll(decoder, [bytes]))]).toEqual([0, 0.5, -1, 32767 / 32768]);
  });

  test("stereo frames are averaged to mono", async () => {
    const decoder = createChunkDecoder({ rate: 16_000, width: 2, channels: 2 });
    const bytes = new Uint8Array(new Int16Array([16384, 0, -16384, -16384]).buffer);
    expect([...(await decodeAll(decoder, [bytes]))]).toEqual([0.25, -0.5]);
  });

  test("8-bit samples are signed, as Python's audioop reads them", async () => {
    const decoder = createChunkDecoder({ rate: 16_000, width: 1, channels: 1 });
    expect([...(await decodeAll(decoder, [new Uint8Array([0, 64, 0x80, 0xc0])]))]).toEqual([
      0, 0.5, -1, -0.5,
    ]);
  });

  test("24- and 32-bit samples are signed little-endian integers", async () => {
    const s24 = createChunkDecoder({ rate: 16_000, width: 3, channels: 1 });
    expect([...(await decodeAll(s24, [new Uint8Array([0, 0, 0x40, 0, 0, 0xc0])]))]).toEqual([0.5, -0.5]);
    const s32 = createChunkDecoder({ rate: 16_000, width: 4, channels: 1 });
    const bytes = new Uint8Array(new Int32Array([2 ** 30, -(2 ** 31)]).buffer);
    expect([...(await decodeAll(s32, [bytes]))]).toEqual([0.5, -1]);
  });

  test("a frame split between chunks waits for its other bytes", async () => {
    const whole = new Uint8Array(new Int16Array([1000, -2000, 3000, -4000, 5000, -6000]).buffer);
    const expected = await decodeAll(createChunkDecoder({ rate: 16_000, width: 2, channels: 2 }), [whole]);
    const decoder = createChunkDecoder({ rate: 16_000, width: 2, channels: 2 });
    const pieces = [whole.subarray(0, 3), whole.subarray(3, 4), whole.subarray(4, 11), whole.subarray(11)];
    expect(await decodeAll(decoder, pieces)).toEqual(expected);
  });

  test("other rates come out at 16 kHz: a second of 44.1 kHz is 16000 samples", async () => {
    const decoder = createChunkDecoder({ rate: 44_100, width: 2, channels: 1 });
    const second = new Uint8Array(44_100 * 2);
    // 1024-byte chunks, as Home Assistant sends them.
    const chunks = Array.from({ length: Math.ceil(second.length / 1024) }, (_, i) =>
      second.subarray(i * 1024, (i + 1) * 1024),
    );
    expect((await decodeAll(decoder, chunks)).length).toBe(16_000);
  });

  test("a stream fits chunks of its own format only", async () => {
    const fits = (other: AudioFormat) =>
      sameStreamFormat(pcmLayoutOf({ rate: 16_000, width: 2, channels: 1 }), pcmLayoutOf(other));
    expect(fits({ rate: 16_000, width: 2, channels: 1 })).toBe(true);
    expect(fits({ rate: 16_000, width: 2, channels: 2 })).toBe(false);
    expect(fits({ rate: 22_050, width: 2, channels: 1 })).toBe(false);
  });
});
