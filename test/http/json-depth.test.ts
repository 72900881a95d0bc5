import { describe, expect, test } from "bun:test";
import { jsonTextDepth, maxJsonDepth, parseJsonBody } from "../../src/http/validate.ts";
import { createTestApp } from "../helpers/app.ts";

type ErrorBody = { error: { code: string; details?: { limit?: number } } };
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

  test("a 16 MiB array is checked in a linear pass, not seconds", () => {
    // Walking the parsed value took 9 s and 600 MiB for this body; the scan takes milliseconds.
    const text = `[${"1,".repeat(8 * 1024 * 1024 - 1)}1]`;
    const started = performance.now();
    expect((parseJsonBody(text, "bad") as unknown[]).length).toBe(8 * 1024 * 1024);
    expect(performance.now() - started).toBeLessThan(2_000);
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
