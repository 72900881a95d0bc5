import { describe, expect, test } from "bun:test";
import { partContentType } from "../../src/http/multipart.ts";

const body = (parts: string[]) =>
  new TextEncoder().encode(`${parts.map((part) => `--xyz\r\n${part}\r\n`).join("")}--xyz--\r\n`);

describe("partContentType", () => {
  const form = body([
    'Content-Disposition: form-data; name="note"\r\n\r\nhello',
    'Content-Disposition: form-data; filename="a.raw"; name="audio"\r\nContent-Type: audio/L16; rate=8000\r\n\r\n\u0001\u0002',
    'content-disposition: form-data; name="file"; filename="b.raw"\r\ncontent-type: audio/pcm\r\n\r\nxx',
  ]);

  test("returns the named part's type as written, parameters included", () => {
    expect(partContentType(form, "xyz", "audio")).toBe("audio/L16; rate=8000");
    expect(partContentType(form, "xyz", "file")).toBe("audio/pcm");
  });

  test("is undefined for a part without a type, a missing part or another boundary", () => {
    expect(partContentType(form, "xyz", "note")).toBeUndefined();
    expect(partContentType(form, "xyz", "other")).toBeUndefined();
    expect(partContentType(form, "abc", "audio")).toBeUndefined();
  });
});
