import { describe, expect, test } from "bun:test";
import { jsonDepth, maxJsonDepth } from "../../src/http/validate.ts";
import { createTestApp } from "../helpers/app.ts";

type ErrorBody = { error: { code: string; details?: { limit?: number } } };
const nested = (depth: number, leaf = "1") => `${"[".repeat(depth)}${leaf}${"]".repeat(depth)}`;

describe("jsonDepth", () => {
  test.each([
    [1, 0],
    ["x", 0],
    [null, 0],
    [[], 1],
    [{}, 1],
    [{ a: [1, { b: 2 }] }, 3],
    [[[], [[[]]], []], 4],
  ])("%j is %d deep", (value, depth) => {
    expect(jsonDepth(value)).toBe(depth);
  });

  test("stops counting just past the limit, however deep the value, without recursing", () => {
    expect(jsonDepth(JSON.parse(nested(200_000)))).toBe(maxJsonDepth + 1);
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
