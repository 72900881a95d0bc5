import { describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { errorOf } from "../helpers/errors.ts";

type RowProblem = { line?: number; index?: number; field?: string; message: string };

const csv = (t: TestApp, body: string, query = "") =>
  t.request(`/api/dictionary/import${query}`, {
    method: "POST",
    headers: { "content-type": "text/csv" },
    body,
  });
const importJson = (t: TestApp, body: unknown, query = "") =>
  t.json(`/api/dictionary/import${query}`, "POST", body);
const exported = (t: TestApp, format?: string) =>
  t.request(`/api/dictionary/export${format ? `?format=${format}` : ""}`);
const allItems = async (t: TestApp) => (await (await exported(t)).json()) as { key: string; value: string }[];

const awkward = [
  { key: "addr", value: '12 "Main" St,\nSpringfield' },
  { key: "café", value: "☕ coffee, black" },
  { key: "東京", value: "Tokyo" },
  { key: "sig", value: "Best,\r\nAda" },
  { key: "eq", value: "=1+1" },
];

describe("POST /api/dictionary/import", () => {
  test("imports a JSON array and reports what changed", async () => {
    const t = createTestApp();
    const res = await importJson(t, [
      { key: "btw", value: "by the way" },
      { key: "omw", value: "on my way" },
    ]);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ created: 2, updated: 0, unchanged: 0, deleted: 0 });
    expect(t.events).toEqual([
      expect.objectContaining({ type: "dictionary.changed", action: "imported", mode: "merge", created: 2 }),
    ]);
  });

  test("merge updates existing keys in any letter case and keeps their usage counts", async () => {
    const t = createTestApp();
    await importJson(t, [{ key: "btw", value: "by the way" }]);
    const id = t.services.dictionary.entries()[0]?.id ?? 0;
    t.services.dictionary.recordUsage(new Map([[id, 3]]));
    const res = await importJson(t, [
      { key: "BTW", value: "By the way" },
      { key: "new", value: "fresh" },
    ]);
    expect(await res.json()).toEqual({ created: 1, updated: 1, unchanged: 0, deleted: 0 });
    expect(t.services.dictionary.get(id)).toMatchObject({ key: "BTW", value: "By the way", usageCount: 3 });
    const again = await importJson(t, [{ key: "BTW", value: "By the way" }]);
    expect(await again.json()).toEqual({ created: 0, updated: 0, unchanged: 1, deleted: 0 });
    expect(t.events).toHaveLength(2);
  });

  test("mode=replace deletes the entries the file does not name", async () => {
    const t = createTestApp();
    await importJson(t, [
      { key: "a", value: "1" },
      { key: "b", value: "2" },
    ]);
    const res = await importJson(t, [{ key: "b", value: "2" }], "?mode=replace");
    expect(await res.json()).toEqual({ created: 0, updated: 0, unchanged: 1, deleted: 1 });
    expect(await allItems(t)).toEqual([{ key: "b", value: "2" }]);
  });

  test("reads CSV with quotes, commas, line breaks, a BOM and blank lines", async () => {
    const t = createTestApp();
    const body = '\uFEFFkey,value\r\n"omw","on my way, ""soon"""\r\n\r\nsig,"Best,\nAda"\r\n,\r\n';
    const res = await csv(t, body);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ created: 2 });
    expect(await allItems(t)).toEqual([
      { key: "omw", value: 'on my way, "soon"' },
      { key: "sig", value: "Best,\nAda" },
    ]);
  });

  test("a CSV header may be in any case and order, and extra columns are ignored", async () => {
    const t = createTestApp();
    const res = await csv(t, "Value,Notes,KEY\nby the way,ignored,btw\n");
    expect(res.status).toBe(200);
    expect(await allItems(t)).toEqual([{ key: "btw", value: "by the way" }]);
  });

  test.each([
    ["application/x-www-form-urlencoded"],
    ["text/plain"],
    ["multipart/form-data; boundary=x"],
    [undefined],
  ])("refuses a body declared as %p with 415 and imports nothing", async (type) => {
    const t = createTestApp();
    const res = await t.request("/api/dictionary/import", {
      method: "POST",
      headers: type === undefined ? {} : { "content-type": type },
      body: JSON.stringify([{ key: "k", value: "v" }]),
    });
    expect(res.status).toBe(415);
    const body = (await res.json()) as { error: { code: string; details: { accepted: string[] } } };
    expect(body.error.code).toBe("unsupported_media_type");
    expect(body.error.details.accepted).toEqual(["application/json", "text/csv"]);
    expect(t.services.dictionary.entries()).toHaveLength(0);
  });

  test("rejects a file with bad rows as a whole and names every bad row", async () => {
    const t = createTestApp();
    await importJson(t, [{ key: "keep", value: "me" }]);
    const body = [
      "key,value",
      "good,fine",
      ",no key",
      "no value,",
      `long,${"v".repeat(2001)}`,
      "GOOD,duplicate in another case",
      "a,b,c",
      "",
      "ok,also fine",
    ].join("\n");
    const res = await csv(t, body);
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe("invalid_import");
    expect(error.message).toContain("nothing was imported");
    const details = error.details as { errorCount: number; errors: RowProblem[] };
    expect(details.errorCount).toBe(5);
    expect(details.errors).toEqual([
      { line: 3, field: "key", message: "key must not be blank" },
      { line: 4, field: "value", message: "value must not be blank" },
      { line: 5, field: "value", message: "value must be at most 2000 characters" },
      { line: 6, message: "duplicates line 2 (compared ignoring letter case)" },
      { line: 7, message: expect.stringContaining("3 fields but the header has 2") },
    ]);
    expect(await allItems(t)).toEqual([{ key: "keep", value: "me" }]);
    expect(t.events).toHaveLength(1);
  });

  test("names bad JSON items by index", async () => {
    const t = createTestApp();
    const res = await importJson(t, [{ key: "a", value: "1" }, { key: "b" }, "c", { key: "A", value: "2" }]);
    expect(res.status).toBe(400);
    const errors = ((await errorOf(res)).details as { errors: RowProblem[] }).errors;
    expect(errors.map((problem) => problem.index)).toEqual([1, 2, 3]);
    expect(errors[2]?.message).toContain("duplicates item 0");
  });

  test.each([
    ["an unclosed quote", 'key,value\na,"open\n', "invalid_csv", 2],
    ["text after a closing quote", 'key,value\na,"x"y\n', "invalid_csv", 2],
    ["a missing header column", "key\nbtw\n", "invalid_csv", 1],
    ["an empty file", "", "invalid_csv", 1],
  ])("rejects CSV with %s", async (_, body, code, line) => {
    const res = await csv(createTestApp(), body);
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe(code);
    expect(error.details).toMatchObject({ line });
  });

  test.each([
    ["malformed JSON", "[{", "invalid_json"],
    ["a JSON object instead of an array", '{"key":"a","value":"b"}', "invalid_request"],
  ])("rejects %s", async (_, body, code) => {
    const t = createTestApp();
    const res = await t.request("/api/dictionary/import", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe(code);
  });

  test("rejects an unknown mode", async () => {
    const res = await importJson(createTestApp(), [], "?mode=append");
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe("invalid_query");
  });
});

describe("import limits", () => {
  const big = { maxBodyBytes: 64 * 1024 * 1024 };

  test("a file over 32 MiB is 413 payload_too_large", async () => {
    const t = createTestApp(big);
    const res = await csv(t, `key,value\n${"x".repeat(32 * 1024 * 1024)}`);
    expect(res.status).toBe(413);
    expect((await errorOf(res)).code).toBe("payload_too_large");
  });

  test("a file with more than 50 000 rows is 413 payload_too_large", async () => {
    const t = createTestApp(big);
    const rows = Array.from({ length: 50_001 }, (_, i) => `k${i},v`).join("\n");
    const res = await csv(t, `key,value\n${rows}`);
    expect(res.status).toBe(413);
    expect((await errorOf(res)).details).toEqual({ rows: 50_001, limit: 50_000 });
  });

  test("an import that would overfill the dictionary is 413 limit_exceeded and rolled back", async () => {
    const t = createTestApp(big);
    t.services.dictionary.importAll(Array.from({ length: 49_999 }, (_, i) => ({ key: `k${i}`, value: "v" })));
    const res = await importJson(t, [
      { key: "k1", value: "changed" },
      { key: "new1", value: "v" },
      { key: "new2", value: "v" },
    ]);
    expect(res.status).toBe(413);
    expect((await errorOf(res)).code).toBe("limit_exceeded");
    expect(t.services.dictionary.count()).toBe(49_999);
    expect(t.services.dictionary.entries().find((entry) => entry.key === "k1")?.value).toBe("v");
    expect(t.events).toHaveLength(0);
  });

  test("creating an entry in a full dictionary is 413 limit_exceeded", async () => {
    const t = createTestApp(big);
    t.services.dictionary.importAll(Array.from({ length: 50_000 }, (_, i) => ({ key: `k${i}`, value: "v" })));
    const res = await t.json("/api/dictionary", "POST", { key: "one more", value: "v" });
    expect(res.status).toBe(413);
    expect((await errorOf(res)).code).toBe("limit_exceeded");
  });
});

describe("GET /api/dictionary/export", () => {
  test("downloads JSON by default, sorted by key, with a dated filename", async () => {
    const t = createTestApp();
    await importJson(t, awkward);
    const res = await exported(t);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("content-disposition")).toMatch(
      /^attachment; filename="svc-dictionary-\d{4}-\d{2}-\d{2}\.json"$/,
    );
    expect(((await res.json()) as { key: string }[]).map((item) => item.key)).toEqual([
      "addr",
      "café",
      "eq",
      "sig",
      "東京",
    ]);
  });

  test("CSV round-trips quotes, commas, line breaks and Unicode into a fresh server", async () => {
    const source = createTestApp();
    await importJson(source, awkward);
    const res = await exported(source, "csv");
    expect(res.headers.get("content-type")).toContain("text/csv");
    expect(res.headers.get("content-disposition")).toContain(".csv");
    const file = await res.text();
    expect(file.startsWith("\uFEFFkey,value\r\n")).toBe(true);
    const target = createTestApp();
    expect((await csv(target, file)).status).toBe(200);
    expect(await allItems(target)).toEqual(await allItems(source));
    expect((await allItems(target)).find((item) => item.key === "sig")?.value).toBe("Best,\r\nAda");
  });

  test("rejects an unknown format", async () => {
    const res = await exported(createTestApp(), "xml");
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe("invalid_query");
  });
});
