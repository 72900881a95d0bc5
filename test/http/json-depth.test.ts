import { describe, expect, test } from "bun:test";
import { jsonShape, maxJsonDepth, maxJsonValues, parseJsonBody } from "../../src/http/json-body.ts";
import { createTestApp } from "../helpers/app.ts";
import type { ErrorBody } from "../helpers/errors.ts";

/** The depth of the deepest array or object in the JSON text (a scalar is 0), by `jsonShape`. */
const jsonTextDepth = (text: string): number =>
  jsonShape(text, { depth: maxJsonDepth, values: Number.POSITIVE_INFINITY }).depth;

/** About how many values the JSON text holds, counted to just past `limit`, by `jsonShape`. */
const jsonValueCount = (text: string, limit = maxJsonValues): number =>
  jsonShape(text, { depth: Number.POSITIVE_INFINITY, values: limit }).values;

const nested = (depth: number, leaf = "1") => `${"[".repeat(depth)}${leaf}${"]".repeat(depth)}`;

describe("jsonTextDepth", () => {
  test.each([
    [1, 0],
    ["x", 0],
    [null, 0],
    [[], 1],
    [{}, 1],
    [{ a: [1, { b: 2 }] }, 3],
    [[[], [[[]]], []], 4],
    [{ "[[[": "{{{", 'q"[': ["\\", '\\"[['] }, 2],
  ])("%j is %d deep", (value, depth) => {
    expect(jsonTextDepth(JSON.stringify(value))).toBe(depth);
  });

  test("stops counting just past the limit, however deep the text", () => {
    expect(jsonTextDepth(nested(200_000))).toBe(maxJsonDepth + 1);
  });

  test("a 16 MiB flat array has depth 1, and parseJsonBody refuses its 8 million values", () => {
    // Walking the parsed value took 9 s and 600 MiB for this body (bun run bench body times it).
    const text = `[${"1,".repeat(8 * 1024 * 1024 - 1)}1]`;
    expect(jsonTextDepth(text)).toBe(1);
    expect(() => parseJsonBody(text, "bad")).toThrow(`at most ${maxJsonValues} values`);
  });
});

describe("deeply nested JSON bodies", () => {
  // Each of these parsed, then overflowed the stack where the value was copied or written out: 500.
  const cases: [string, string, string][] = [
    ["a plugin's options", "/api/settings/plugins", `{"value":[["fx",{"a":${nested(100_000)}}]]}`],
    ["a client preference", "/api/settings/console.layout", `{"value":${nested(100_000)}}`],
    ["a dictionary import", "/api/dictionary/import", nested(100_000)],
  ];
  test.each(cases)("%s: 400 json_too_deep, nothing stored", async (_, path, body) => {
    const t = createTestApp();
    const method = path.includes("/settings/") ? "PUT" : "POST";
    const res = await t.request(path, { method, headers: { "content-type": "application/json" }, body });
    expect(res.status).toBe(400);
    const error = ((await res.json()) as ErrorBody).error;
    expect(error.code).toBe("json_too_deep");
    expect(error.details?.limit).toBe(maxJsonDepth);
    expect(t.services.settings.get("plugins")).toEqual([]);
  });

  test("a value at the limit is accepted", async () => {
    const t = createTestApp();
    const value = nested(maxJsonDepth - 1);
    const res = await t.request("/api/settings/console.layout", {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: `{"value":${value}}`,
    });
    expect(res.status).toBe(200);
  });
});

describe("JSON bodies with millions of tiny values", () => {
  test("jsonValueCount counts elements, members and containers, not what strings hold", () => {
    expect(jsonValueCount('[1,2,{"a":"x,y[","b":[]}]')).toBe(6);
    expect(jsonValueCount("[1,1,1,1]", 2)).toBe(3);
  });

  test("an import of more values than maxJsonValues is 413 before it is parsed; one at the limit is read", async () => {
    const t = createTestApp();
    const send = (count: number) =>
      t.request("/api/import", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: `{"format":"svc-export","version":1,"n":[${"0,".repeat(count - 1)}0]}`,
      });
    // The envelope adds 4 to the count: {, [, and the two commas between its fields.
    const over = await send(maxJsonValues - 2);
    expect(over.status).toBe(413);
    const error = ((await over.json()) as ErrorBody).error;
    expect(error.code).toBe("payload_too_large");
    expect(error.details?.limit).toBe(maxJsonValues);
    // At the limit the document is parsed and imported (fields it does not know are ignored).
    expect((await send(maxJsonValues - 3)).status).toBe(200);
  });
});

describe("JSON bodies read as bytes", () => {
  test("parse as their text does, multi-byte characters and escaped quotes in strings included", () => {
    const text = '{"word":"café \\" [ü,{✓}]","list":[1,2,{"ö":"ß"}]}';
    const bytes = new TextEncoder().encode(text);
    expect(parseJsonBody(bytes, "bad")).toEqual(JSON.parse(text));
    expect(jsonShape(bytes)).toEqual(jsonShape(text));
    expect(jsonShape(bytes)).toEqual({ depth: 3, values: 6 });
  });
});
