import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import type { AppError } from "../../src/errors.ts";
import { maxReportedIssues, parseOrThrow, safeParseBounded } from "../../src/validation.ts";
import { createTestApp } from "../helpers/app.ts";

const items = v.array(v.object({ key: v.string("key must be a string") }));
const numbers = (count: number) => Array.from({ length: count }, (_, i) => i);

function thrown(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    return error as AppError;
  }
  throw new Error("did not throw");
}

describe("safeParseBounded", () => {
  test("lists every problem of a small input, as safeParse does", () => {
    const schema = v.object({ a: v.string(), b: v.number() });
    const result = safeParseBounded(schema, { a: 1, b: "x" });
    expect(result.success).toBe(false);
    expect(result.issues?.map((issue) => v.getDotPath(issue))).toEqual(["a", "b"]);
  });

  test("a valid input comes back parsed", () => {
    const result = safeParseBounded(items, [{ key: "a" }]);
    expect(result.success).toBe(true);
    expect(result.output).toEqual([{ key: "a" }]);
  });

  test("stops after about maxReportedIssues problems: one per element of a huge array is never built", () => {
    const result = safeParseBounded(items, numbers(200_000));
    expect(result.success).toBe(false);
    expect(result.issues?.length).toBeGreaterThan(0);
    expect(result.issues?.length).toBeLessThanOrEqual(maxReportedIssues);
  });
});

describe("parseOrThrow", () => {
  test("400 with at most maxReportedIssues details for an array of bad elements", () => {
    const error = thrown(() => parseOrThrow(items, numbers(200_000)));
    expect(error.status).toBe(400);
    expect((error.details as unknown[]).length).toBeLessThanOrEqual(maxReportedIssues);
  });
});

describe("settings given a huge array", () => {
  test("400 invalid_setting listing a bounded number of problems", async () => {
    const t = createTestApp();
    const res = await t.json("/api/settings/filler_words", "PUT", { value: numbers(100_000) });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; details: { issues: unknown[] } } };
    expect(body.error.code).toBe("invalid_setting");
    expect(body.error.details.issues.length).toBeLessThanOrEqual(maxReportedIssues);
  });
});
