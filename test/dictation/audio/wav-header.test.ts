import { describe, expect, test } from "bun:test";
import { decodeAudio } from "../../../src/dictation/audio/decode.ts";
import {
  ascii,
  type Chunk,
  data,
  fmt,
  join,
  riff,
  s16,
  sine,
  u32,
  wav16,
} from "../../helpers/wav-builder.ts";
import { expectAppError, maxDifference } from "./signal.ts";

const limits = { maxDurationMs: 60_000 };
const tone = sine(16000, 440, 0.1);
const pcm = s16(tone);
const mono16 = fmt({ tag: 1, channels: 1, rate: 16000, bits: 16 });
const decode = (bytes: Uint8Array, type = "audio/wav") => decodeAudio(bytes, type, limits);

/** What a correct reader returns for `pcm`, to compare the lying files against. */
const expected = async () => (await decode(wav16(tone))).pcm;

describe("decodeAudio with lying or damaged WAV headers", () => {
  test.each([
    ["huge", 0x7ffffff0],
    ["streaming 0", 0],
    ["streaming 0xFFFFFFFF", 0xffffffff],
  ])("uses the bytes present when the data size is %s", async (_, declaredSize) => {
    const decoded = await decode(riff([mono16, data(pcm, declaredSize)]));
    expect(decoded.durationMs).toBe(100);
    expect(maxDifference(decoded.pcm, await expected())).toBe(0);
  });

  test("ignores a RIFF size that lies", async () => {
    for (const riffSize of [0, 12, 0xffffffff]) {
      expect((await decode(riff([mono16, data(pcm)], { riffSize }))).durationMs).toBe(100);
    }
  });

  test("never allocates from a declared size: 4 GB declared in a 60-byte file", async () => {
    Bun.gc(true);
    const before = process.memoryUsage().rss;
    const decoded = await decode(riff([mono16, data(new Uint8Array(16), 0xfffffff0)]));
    expect(decoded.durationMs).toBe(0.5);
    expect(process.memoryUsage().rss - before).toBeLessThan(32 * 1024 * 1024);
  });

  test("skips unknown chunks, with and without their pad byte", async () => {
    const junk = (id: string, size: number, noPad = false): Chunk => ({
      id,
      body: new Uint8Array(size),
      noPad,
    });
    for (const chunks of [
      [junk("LIST", 7), mono16, junk("bext", 3), data(pcm)],
      [junk("JUNK", 7, true), mono16, junk("fact", 5, true), data(pcm)],
      [mono16, junk("LIST", 0), junk("smpl", 36), data(pcm), junk("id3 ", 9)],
    ]) {
      expect(maxDifference((await decode(riff(chunks))).pcm, await expected())).toBe(0);
    }
  });

  test("accepts a sized data chunk before fmt, but not a streaming one", async () => {
    expect((await decode(riff([data(pcm), mono16]))).durationMs).toBe(100);
    await expectAppError(decode(riff([data(pcm, 0), mono16])), 422, "invalid_audio");
  });

  test("ignores a trailing partial frame", async () => {
    const stereo = fmt({ tag: 1, channels: 2, rate: 16000, bits: 16 });
    const decoded = await decode(riff([stereo, data(join([pcm, new Uint8Array(3)]))]));
    expect(decoded.pcm.length).toBe(800);
  });

  test("ignores a block align and byte rate that lie", async () => {
    const lying = fmt({ tag: 1, channels: 1, rate: 16000, bits: 16, blockAlign: 7 });
    expect(maxDifference((await decode(riff([lying, data(pcm)]))).pcm, await expected())).toBe(0);
  });

  test("reads RF64 with its ds64 sizes", async () => {
    const ds64 = join([u32(0), u32(0), u32(pcm.length), u32(0), u32(0), u32(0), u32(0)]);
    const bytes = riff([{ id: "ds64", body: ds64 }, mono16, data(pcm, 0xffffffff)], { magic: "RF64" });
    expect((await decode(bytes)).durationMs).toBe(100);
  });

  test("reads 12-bit samples stored in 16-bit containers", async () => {
    const twelve = fmt({ tag: 1, channels: 1, rate: 16000, bits: 12, blockAlign: 2 });
    expect((await decode(riff([twelve, data(pcm)]))).pcm.length).toBe(1600);
  });

  test.each([
    ["0 channels", riff([fmt({ tag: 1, channels: 0, rate: 16000, bits: 16 }), data(pcm)])],
    [
      "65535 channels (no complete frame)",
      riff([fmt({ tag: 1, channels: 65535, rate: 16000, bits: 16 }), data(pcm)]),
    ],
    ["a 0 Hz rate", riff([fmt({ tag: 1, channels: 1, rate: 0, bits: 16 }), data(pcm)])],
    ["a 4 GHz rate", riff([fmt({ tag: 1, channels: 1, rate: 0xffffffff, bits: 16 }), data(pcm)])],
    ["0 bits per sample", riff([fmt({ tag: 1, channels: 1, rate: 16000, bits: 0 }), data(pcm)])],
    ["no data chunk", riff([mono16])],
    ["no fmt chunk", riff([data(pcm)])],
    ["an empty data chunk", riff([mono16, data(new Uint8Array(0))])],
    ["a 10-byte fmt chunk", riff([{ id: "fmt ", body: new Uint8Array(10) }, data(pcm)])],
    ["a 16-byte extensible fmt", riff([fmt({ tag: 0xfffe, channels: 1, rate: 16000, bits: 16 }), data(pcm)])],
    ["only the RIFF header", ascii("RIFF\0\0\0\0WAVE")],
    ["600 junk chunks", riff(Array.from({ length: 600 }, () => ({ id: "JUNK", body: new Uint8Array(0) })))],
    ["declared WAV that is not RIFF", ascii("not a wave file at all")],
  ])("refuses %s with 422 invalid_audio", async (_, bytes) => {
    const error = await expectAppError(decode(bytes), 422, "invalid_audio");
    expect(error.message.length).toBeGreaterThan(20);
  });

  test.each([
    ["MS ADPCM", riff([fmt({ tag: 2, channels: 1, rate: 16000, bits: 4 }), data(pcm)])],
    ["24-bit float", riff([fmt({ tag: 3, channels: 1, rate: 16000, bits: 24 }), data(pcm)])],
    [
      "an unknown extensible GUID",
      riff([
        fmt({ tag: 1, channels: 1, rate: 16000, bits: 16, subformat: 1, guidTail: new Array(14).fill(7) }),
        data(pcm),
      ]),
    ],
    ["big-endian RIFX", riff([mono16, data(pcm)], { magic: "RIFX" })],
    ["a RIFF AVI", join([ascii("RIFF"), u32(4), ascii("AVI ")])],
  ])("refuses %s with 415 unsupported_audio naming what is accepted", async (_, bytes) => {
    const error = await expectAppError(decode(bytes), 415, "unsupported_audio");
    expect(error.message).toContain("Send WAV");
  });

  test("reads an extensible 32-bit float file", async () => {
    const extensibleFloat = fmt({ tag: 1, channels: 1, rate: 16000, bits: 32, subformat: 3 });
    const decoded = await decode(
      riff([extensibleFloat, data(new Uint8Array(Float32Array.from(tone).buffer))]),
    );
    expect(maxDifference(decoded.pcm, tone)).toBe(0);
  });

  test("turns NaN and infinite float samples into silence, and refuses a file of nothing else", async () => {
    const float = fmt({ tag: 3, channels: 1, rate: 16000, bits: 32 });
    const mixed = Float32Array.from([0.25, Number.NaN, Number.POSITIVE_INFINITY, -4, 0.5]);
    const decoded = await decode(riff([float, data(new Uint8Array(mixed.buffer))]));
    expect(Array.from(decoded.pcm)).toEqual([0.25, 0, 0, -1, 0.5]);
    const nan = new Float32Array(64).fill(Number.NaN);
    await expectAppError(decode(riff([float, data(new Uint8Array(nan.buffer))])), 422, "invalid_audio");
  });

  test("refuses audio over the limit from the byte count, before converting it", async () => {
    // Two hours of 16 kHz mono would be 230 MB; the header plus 1 s is enough to know.
    const bytes = riff([mono16, data(s16(sine(16000, 440, 1)))]);
    const started = performance.now();
    const error = await expectAppError(
      decodeAudio(bytes, "audio/wav", { maxDurationMs: 999 }),
      413,
      "audio_too_long",
    );
    expect(performance.now() - started).toBeLessThan(50);
    expect(error.details).toEqual({ durationMs: 1000, maxDurationMs: 999 });
    expect((await decodeAudio(bytes, "audio/wav", { maxDurationMs: 1000 })).durationMs).toBe(1000);
  });
});
