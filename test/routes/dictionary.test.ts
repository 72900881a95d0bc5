import { describe, expect, test } from "bun:test";
import type { DictionaryEntry } from "../../src/db/dictionary-repo.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { errorOf } from "../helpers/errors.ts";

type Page = { items: DictionaryEntry[]; total: number; limit: number; offset: number };

const add = async (t: TestApp, key: string, value: string) => {
  const res = await t.json("/api/dictionary", "POST", { key, value });
  expect(res.status).toBe(201);
  return (await res.json()) as DictionaryEntry;
};
const list = async (t: TestApp, query = "") =>
  (await (await t.request(`/api/dictionary${query}`)).json()) as Page;

describe("POST /api/dictionary", () => {
  test("creates a trimmed entry with usage count and ISO timestamps", async () => {
    const t = createTestApp();
    const res = await t.json("/api/dictionary", "POST", {
      key: "  my   email ",
      value: " me@example.com \n",
    });
    expect(res.status).toBe(201);
    const entry = (await res.json()) as DictionaryEntry;
    expect(entry).toMatchObject({
      key: "my email",
      value: "me@example.com",
      usageCount: 0,
      lastUsedAt: null,
    });
    expect(entry.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(entry.updatedAt).toBe(entry.createdAt);
    expect(res.headers.get("location")).toBe(`/api/dictionary/${entry.id}`);
  });

  test.each([["BTW"], ["Btw"], ["  btw  "]])(
    "returns 409 conflict when the key exists in another letter case (%p)",
    async (key) => {
      const t = createTestApp();
      const first = await add(t, "btw", "by the way");
      const res = await t.json("/api/dictionary", "POST", { key, value: "other" });
      expect(res.status).toBe(409);
      const error = await errorOf(res);
      expect(error.code).toBe("conflict");
      expect(error.details).toMatchObject({ field: "key", existingId: first.id });
    },
  );

  test("folds Unicode case: Straße and STRASSE, Σ and σ, composed and decomposed é", async () => {
    const t = createTestApp();
    await add(t, "Straße", "street");
    await add(t, "ΟΔΟΣ", "road");
    await add(t, "café", "coffee");
    for (const key of ["STRASSE", "οδος", "cafe\u0301"]) {
      expect((await t.json("/api/dictionary", "POST", { key, value: "x" })).status).toBe(409);
    }
  });

  test.each([
    ["an empty key", { key: "", value: "x" }, "key"],
    ["a blank key", { key: "   ", value: "x" }, "key"],
    ["a blank value", { key: "k", value: "  " }, "value"],
    ["a 201-character key", { key: "k".repeat(201), value: "x" }, "key"],
    ["a 2001-character value", { key: "k", value: "v".repeat(2001) }, "value"],
    ["a number as key", { key: 5, value: "x" }, "key"],
    ["a missing key", { value: "x" }, "key"],
    ["an unknown field", { key: "k", value: "x", extra: true }, "extra"],
  ])("returns 400 with the field for %s", async (_, body, field) => {
    const t = createTestApp();
    const res = await t.json("/api/dictionary", "POST", body);
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe("invalid_request");
    expect((error.details as { path: string }[]).map((issue) => issue.path)).toContain(field);
  });

  test("accepts the longest allowed key and value", async () => {
    const t = createTestApp();
    const res = await t.json("/api/dictionary", "POST", { key: "k".repeat(200), value: "v".repeat(2000) });
    expect(res.status).toBe(201);
  });

  test("malformed JSON is a 400, not a 500", async () => {
    const t = createTestApp();
    const res = await t.request("/api/dictionary", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"key": "a",',
    });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe("invalid_json");
  });

  test("publishes dictionary.changed with the action and id", async () => {
    const t = createTestApp();
    const entry = await add(t, "omw", "on my way");
    expect(t.events).toEqual([
      expect.objectContaining({ type: "dictionary.changed", action: "created", id: entry.id }),
    ]);
  });
});

describe("GET /api/dictionary/:id", () => {
  test("returns the entry", async () => {
    const t = createTestApp();
    const entry = await add(t, "omw", "on my way");
    const res = await t.request(`/api/dictionary/${entry.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(entry);
  });

  test("returns 404 for an unknown id", async () => {
    const res = await createTestApp().request("/api/dictionary/999");
    expect(res.status).toBe(404);
    expect((await errorOf(res)).code).toBe("not_found");
  });

  test.each(["abc", "0", "-1", "1.5", "99999999999999999999"])("returns 400 for the id %p", async (id) => {
    const res = await createTestApp().request(`/api/dictionary/${id}`);
    expect(res.status).toBe(400);
    expect(((await errorOf(res)).details as { path: string }[])[0]?.path).toBe("id");
  });
});

describe("PATCH /api/dictionary/:id", () => {
  test("changes only the fields sent and bumps updatedAt", async () => {
    const t = createTestApp();
    const entry = await add(t, "omw", "on my way");
    await Bun.sleep(2);
    const res = await t.json(`/api/dictionary/${entry.id}`, "PATCH", { value: " on my way! " });
    expect(res.status).toBe(200);
    const updated = (await res.json()) as DictionaryEntry;
    expect(updated).toMatchObject({
      id: entry.id,
      key: "omw",
      value: "on my way!",
      createdAt: entry.createdAt,
    });
    expect(updated.updatedAt > entry.updatedAt).toBe(true);
    expect(t.events.at(-1)).toMatchObject({ type: "dictionary.changed", action: "updated", id: entry.id });
  });

  test("may change the letter case of its own key", async () => {
    const t = createTestApp();
    const entry = await add(t, "omw", "on my way");
    const res = await t.json(`/api/dictionary/${entry.id}`, "PATCH", { key: "OMW" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as DictionaryEntry).key).toBe("OMW");
  });

  test("returns 409 when the new key belongs to another entry", async () => {
    const t = createTestApp();
    await add(t, "btw", "by the way");
    const other = await add(t, "omw", "on my way");
    const res = await t.json(`/api/dictionary/${other.id}`, "PATCH", { key: "BTW" });
    expect(res.status).toBe(409);
  });

  test("returns 400 for an empty patch and 404 for an unknown id", async () => {
    const t = createTestApp();
    const entry = await add(t, "omw", "on my way");
    expect((await t.json(`/api/dictionary/${entry.id}`, "PATCH", {})).status).toBe(400);
    expect((await t.json("/api/dictionary/4242", "PATCH", { value: "x" })).status).toBe(404);
    expect((await t.json("/api/dictionary/x", "PATCH", { value: "x" })).status).toBe(400);
  });
});

describe("DELETE /api/dictionary/:id", () => {
  test("deletes, publishes, and is 404 the second time", async () => {
    const t = createTestApp();
    const entry = await add(t, "omw", "on my way");
    const res = await t.request(`/api/dictionary/${entry.id}`, { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(t.events.at(-1)).toMatchObject({ type: "dictionary.changed", action: "deleted", id: entry.id });
    expect((await t.request(`/api/dictionary/${entry.id}`, { method: "DELETE" })).status).toBe(404);
    expect(t.events).toHaveLength(2);
  });
});

describe("GET /api/dictionary", () => {
  const seed = async (t: TestApp) => {
    for (const [key, value] of [
      ["alpha", "first"],
      ["50%", "fifty percent"],
      ["a_b", "underscore"],
      ["axb", "no underscore"],
      ["Éclair", "pastry"],
    ] as const) {
      await add(t, key, value);
    }
  };

  test("answers {items,total,limit,offset}, newest first by default", async () => {
    const t = createTestApp();
    await seed(t);
    const page = await list(t);
    expect(page).toMatchObject({ total: 5, limit: 50, offset: 0 });
    expect(page.items.map((item) => item.key)).toEqual(["Éclair", "axb", "a_b", "50%", "alpha"]);
  });

  test("pages with limit and offset, and an offset past the end is an empty page", async () => {
    const t = createTestApp();
    await seed(t);
    const page = await list(t, "?orderBy=key&limit=2&offset=1");
    expect(page.items.map((item) => item.key)).toEqual(["a_b", "alpha"]);
    expect(page.total).toBe(5);
    const past = await list(t, "?offset=10");
    expect(past).toEqual({ items: [], total: 5, limit: 50, offset: 10 });
  });

  test("orders case-insensitively by key, and descending on request", async () => {
    const t = createTestApp();
    await seed(t);
    await add(t, "Beta", "second");
    const keys = async (query: string) => (await list(t, query)).items.map((item) => item.key);
    expect(await keys("?orderBy=key")).toEqual(["50%", "a_b", "alpha", "axb", "Beta", "Éclair"]);
    expect(await keys("?orderBy=key:desc")).toEqual(["Éclair", "Beta", "axb", "alpha", "a_b", "50%"]);
  });

  test("search treats % and _ literally", async () => {
    const t = createTestApp();
    await seed(t);
    expect((await list(t, "?search=%25")).items.map((item) => item.key)).toEqual(["50%"]);
    expect((await list(t, "?search=a_")).items.map((item) => item.key)).toEqual(["a_b"]);
  });

  test("search matches values and folds the case of keys beyond ASCII", async () => {
    const t = createTestApp();
    await seed(t);
    expect((await list(t, "?search=PASTRY")).items.map((item) => item.key)).toEqual(["Éclair"]);
    expect((await list(t, "?search=%C3%89CLAIR")).items.map((item) => item.key)).toEqual(["Éclair"]);
    expect((await list(t, "?search=%C3%A9cl")).total).toBe(1);
  });

  test.each([
    "?limit=0",
    "?limit=501",
    "?limit=abc",
    "?offset=-1",
    "?orderBy=password",
    "?orderBy=key:sideways",
  ])("returns 400 invalid_query for %s", async (query) => {
    const res = await createTestApp().request(`/api/dictionary${query}`);
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe("invalid_query");
  });

  test("accepts limit=500", async () => {
    expect((await createTestApp().request("/api/dictionary?limit=500")).status).toBe(200);
  });
});
