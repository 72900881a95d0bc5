import { describe, expect, test } from "bun:test";
import { isAppError } from "../../src/errors.ts";
import { createEventReader, encodeEvent, type FrameLimits } from "../../src/wyoming/framing.ts";
import { wyomingBytes } from "../helpers/wyoming.ts";

const limits: FrameLimits = { maxHeaderBytes: 1024, maxDataBytes: 4096, maxPayloadBytes: 65_536 };
const reader = (overrides: Partial<FrameLimits> = {}) =>
  createEventReader(() => ({ ...limits, ...overrides }));
const text = (s: string) => new TextEncoder().encode(s);

/** The error code a push throws, or null when it reads fine. */
function refusal(push: () => unknown): string | null {
  try {
    push();
    return null;
  } catch (error) {
    if (!isAppError(error)) throw error;
    return error.code;
  }
}

describe("createEventReader", () => {
  const pieces = [
    wyomingBytes("describe"),
    wyomingBytes("transcribe", { language: "en" }),
    wyomingBytes(
      "audio-chunk",
      { rate: 16000, width: 2, channels: 1 },
      new Uint8Array([1, 2, 3, 4, 10, 255]),
    ),
    text('{"type":"audio-stop","data":{"timestamp":5}}\n'),
  ];
  const stream = Buffer.concat(pieces);
  // Each event's size is its bytes on the wire.
  const expected = [
    { type: "describe", data: {}, payload: null },
    { type: "transcribe", data: { language: "en" }, payload: null },
    {
      type: "audio-chunk",
      data: { rate: 16000, width: 2, channels: 1 },
      payload: new Uint8Array([1, 2, 3, 4, 10, 255]),
    },
    { type: "audio-stop", data: { timestamp: 5 }, payload: null },
  ].map((event, i) => ({ ...event, size: pieces[i]?.length ?? 0 }));

  test("reads a stream of events however TCP splits it: in one piece, byte by byte, at every point", () => {
    expect(reader().push(stream)).toEqual(expected);
    const single = reader();
    const bytewise = [...stream].flatMap((byte) => single.push(new Uint8Array([byte])));
    expect(bytewise).toEqual(expected);
    for (let split = 1; split < stream.length; split++) {
      const r = reader();
      const events = [...r.push(stream.subarray(0, split)), ...r.push(stream.subarray(split))];
      expect({ split, events }).toEqual({ split, events: expected });
    }
  });

  test("merges the data bytes over the header's data", () => {
    const merged = reader().push(
      Buffer.concat([
        text('{"type":"transcribe","data":{"language":"de","name":"a"},"data_length":17}\n'),
        text('{"language":"en"}'),
      ]),
    );
    expect(merged).toEqual([
      { type: "transcribe", data: { language: "en", name: "a" }, payload: null, size: 92 },
    ]);
  });

  test("takes null data and lengths of 0 or null as none, and ignores unknown header fields", () => {
    const events = reader().push(
      text('{"type":"ping","data":null,"data_length":0,"payload_length":null,"version":"9.9","x":1}\n'),
    );
    expect(events).toMatchObject([{ type: "ping", data: {}, payload: null }]);
  });

  test("holds an event until its last payload byte, then reads on from the next byte", () => {
    const r = reader();
    expect(r.push(text('{"type":"audio-chunk","payload_length":4}\n\x01\x02'))).toEqual([]);
    expect(r.midEvent).toBe(true);
    expect(r.push(new Uint8Array([3, 4, 0x7b]))).toEqual([
      { type: "audio-chunk", data: {}, payload: new Uint8Array([1, 2, 3, 4]), size: 42 + 4 },
    ]);
    expect(r.midEvent).toBe(true);
    expect(r.push(text('"type":"x"}\n'))).toEqual([{ type: "x", data: {}, payload: null, size: 13 }]);
    expect(r.midEvent).toBe(false);
  });

  test.each([
    ["not JSON", "hello\n", "invalid_json"],
    ["not UTF-8", "\xff\xfe\n", "invalid_json"],
    ["a JSON array", "[1,2]\n", "invalid_request"],
    ["no type", '{"data":{}}\n', "invalid_request"],
    ["an empty type", '{"type":""}\n', "invalid_request"],
    ["data that is not an object", '{"type":"x","data":[1]}\n', "invalid_request"],
    ["a negative data_length", '{"type":"x","data_length":-1}\n', "invalid_request"],
    ["a fractional payload_length", '{"type":"x","payload_length":1.5}\n', "invalid_request"],
    ["a payload_length as a string", '{"type":"x","payload_length":"10"}\n', "invalid_request"],
    ["a payload_length past 2^53", '{"type":"x","payload_length":1e300}\n', "invalid_request"],
    ["a data_length over the limit", '{"type":"x","data_length":4097}\n', "payload_too_large"],
    ["a payload_length over the limit", '{"type":"x","payload_length":65537}\n', "payload_too_large"],
    ["an empty line", "\n", "invalid_json"],
  ])("refuses a header with %s", (_name, line, code) => {
    const bytes = Uint8Array.from(line, (c) => c.charCodeAt(0));
    expect(refusal(() => reader().push(bytes))).toBe(code);
  });

  test("refuses data bytes that are not a JSON object", () => {
    expect(refusal(() => reader().push(text('{"type":"x","data_length":3}\n[1]')))).toBe("invalid_request");
    expect(refusal(() => reader().push(text('{"type":"x","data_length":3}\nabc')))).toBe("invalid_json");
  });

  test("refuses a header line past the limit before its newline arrives", () => {
    const r = reader({ maxHeaderBytes: 256 });
    expect(r.push(text(`{"type":"${"a".repeat(200)}`))).toEqual([]);
    expect(refusal(() => r.push(text("a".repeat(100))))).toBe("payload_too_large");
    // A line at the limit is fine.
    const line = `{"type":"${"b".repeat(256 - 11)}"}`;
    expect(line.length).toBe(256);
    expect(reader({ maxHeaderBytes: 256 }).push(text(`${line}\n`))).toHaveLength(1);
  });

  test("reads each event under the limits as they are when it begins", () => {
    let max = 8;
    const r = createEventReader(() => ({ ...limits, maxPayloadBytes: max }));
    expect(r.push(wyomingBytes("a", undefined, new Uint8Array(8)))).toHaveLength(1);
    max = 4;
    expect(refusal(() => r.push(wyomingBytes("a", undefined, new Uint8Array(8))))).toBe("payload_too_large");
  });
});

describe("encodeEvent", () => {
  test("writes the header with version and lengths, the data as its own bytes, then the payload", () => {
    const bytes = encodeEvent("audio-chunk", { rate: 16000 }, new Uint8Array([9, 8]));
    const newline = bytes.indexOf(0x0a);
    const header = JSON.parse(Buffer.from(bytes.subarray(0, newline)).toString());
    expect(header).toEqual({ type: "audio-chunk", version: "1.9.0", data_length: 14, payload_length: 2 });
    expect(Buffer.from(bytes.subarray(newline + 1, newline + 15)).toString()).toBe('{"rate":16000}');
    expect([...bytes.subarray(newline + 15)]).toEqual([9, 8]);
  });

  test("leaves out empty data and payload, and round-trips through the reader", () => {
    expect(Buffer.from(encodeEvent("transcript-stop", {})).toString()).toBe(
      '{"type":"transcript-stop","version":"1.9.0"}\n',
    );
    const events = reader().push(
      Buffer.concat([encodeEvent("transcript", { text: "ünïcode ✓" }), encodeEvent("pong")]),
    );
    expect(events).toMatchObject([
      { type: "transcript", data: { text: "ünïcode ✓" }, payload: null },
      { type: "pong", data: {}, payload: null },
    ]);
  });
});
