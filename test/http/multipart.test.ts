import { describe, expect, test } from "bun:test";
import { AppError } from "../../src/errors.ts";
import { readMultipart } from "../../src/http/multipart.ts";

const body = (parts: string[], boundary = "xyz") =>
  new TextEncoder().encode(
    `${parts.map((part) => `--${boundary}\r\n${part}\r\n`).join("")}--${boundary}--\r\n`,
  );
const type = "multipart/form-data; boundary=xyz";

const codeOf = (read: () => unknown) => {
  try {
    read();
    return "ok";
  } catch (error) {
    return error instanceof AppError ? error.code : String(error);
  }
};

describe("readMultipart", () => {
  const form = body([
    'Content-Disposition: form-data; name="note"\r\n\r\nhello',
    'Content-Disposition: form-data; filename="a.raw"; name="audio"\r\nContent-Type: audio/L16; rate=8000\r\n\r\n\u0001\u0002',
    'content-disposition: form-data; name="file"; filename="b.raw"\r\ncontent-type: audio/pcm\r\n\r\nxx',
    'Content-Disposition: form-data; name="tags[]"\r\n\r\nword',
    'Content-Disposition: form-data; name="tags[]"\r\n\r\nsegment',
    'Content-Disposition: form-data; name="empty"\r\n\r\n',
    'Content-Disposition: form-data; name="untyped"; filename=""\r\n\r\nbytes',
  ]);

  test("returns each file with its part's own type, parameters included, and its name", () => {
    const read = readMultipart(form, type);
    expect(read.file("audio")).toEqual({
      audio: new Uint8Array([1, 2]),
      contentType: "audio/L16; rate=8000",
      filename: "a.raw",
    });
    expect(read.file("file")?.contentType).toBe("audio/pcm");
    expect(read.file("untyped")).toEqual({
      audio: new TextEncoder().encode("bytes"),
      contentType: undefined,
      filename: "",
    });
    expect(read.file("note")).toBeUndefined();
    expect(read.file("other")).toBeUndefined();
  });

  test("answers text fields as FormData does: the first, all of them, empty ones, absent ones", () => {
    const read = readMultipart(form, type);
    expect(read.get("note")).toBe("hello");
    expect(read.getAll("tags[]")).toEqual(["word", "segment"]);
    expect(read.get("empty")).toBe("");
    expect(read.get("missing")).toBeNull();
  });

  test("a file's bytes are a view into the body where samples can be read in place, else a copy", () => {
    // Headers of a length that puts the file at an offset divisible by 8, then one that does not.
    const at = (filename: string) => {
      const bytes = body([
        `Content-Disposition: form-data; name="f"; filename="${filename}"\r\n\r\nabcdefgh`,
      ]);
      const audio = readMultipart(bytes, type).file("f")?.audio;
      const offset = new TextDecoder().decode(bytes).indexOf("abcdefgh");
      return {
        sameBuffer: audio?.buffer === bytes.buffer,
        aligned: (audio?.byteOffset ?? 1) % 8 === 0,
        offset,
      };
    };
    const [first, second] = [at("a.raw"), at("ab.raw")];
    expect([first, second].map((read) => read.aligned)).toEqual([true, true]);
    expect([first, second].map((read) => read.sameBuffer)).toEqual([
      first.offset % 8 === 0,
      second.offset % 8 === 0,
    ]);
    expect([first.offset % 8, second.offset % 8].filter((rest) => rest === 0)).not.toHaveLength(2);
  });

  test("UTF-8 in names and values; binary with CRLF and dashes inside a file", () => {
    const binary = "\r\n--xy\r\n-- \r\n";
    const read = readMultipart(
      body([
        'Content-Disposition: form-data; name="prompt"\r\n\r\nStraße über Köln',
        `Content-Disposition: form-data; name="file"; filename="x.bin"\r\n\r\n${binary}`,
      ]),
      type,
    );
    expect(read.get("prompt")).toBe("Straße über Köln");
    expect(new TextDecoder().decode(read.file("file")?.audio)).toBe(binary);
  });

  test("a preamble, transport padding and a quoted boundary are read as the RFC allows", () => {
    const text =
      'preamble\r\n--a b\r\nContent-Disposition: form-data; name="x"\r\n\r\n1\r\n--a b  \r\nContent-Disposition: form-data; name="y"\r\n\r\n2\r\n--a b--\r\nepilogue';
    const read = readMultipart(new TextEncoder().encode(text), 'multipart/form-data; boundary="a b"');
    expect([read.get("x"), read.get("y")]).toEqual(["1", "2"]);
  });

  test.each([
    ["no boundary", body(['Content-Disposition: form-data; name="x"\r\n\r\n1']), "multipart/form-data"],
    ["another boundary", body(['Content-Disposition: form-data; name="x"\r\n\r\n1'], "abc"), type],
    [
      "no closing delimiter",
      new TextEncoder().encode('--xyz\r\nContent-Disposition: form-data; name="x"\r\n\r\n1'),
      type,
    ],
    ["a part without a name", body(["Content-Type: text/plain\r\n\r\n1"]), type],
    [
      "headers that never end",
      new TextEncoder().encode('--xyz\r\nContent-Disposition: form-data; name="x"\r\n--xyz--'),
      type,
    ],
    ["an empty body", new Uint8Array(0), type],
  ])("%s is 400 invalid_multipart", (_name, bytes, contentType) => {
    expect(codeOf(() => readMultipart(bytes, contentType))).toBe("invalid_multipart");
  });
});
