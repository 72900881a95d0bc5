import { describe, expect, test } from "bun:test";
import type { VocabularyEntry } from "../../src/db/vocabulary-repo.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { errorOf } from "../helpers/errors.ts";

type Page = { items: VocabularyEntry[]; total: number; limit: number; offset: number };

const add = async (t: TestApp, term: string, notes?: string) => {
  const res = await t.json("/api/vocabulary", "POST", notes === undefined ? { term } : { term, notes });
  expect(res.status).toBe(201);
  return (await res.json()) as VocabularyEntry;
};
const list = async (t: TestApp, query = "") =>
  (await (await t.request(`/api/vocabulary${query}`)).json()) as Page;
const csv = (t: TestApp, body: string) =>
  t.request("/api/vocabulary/import", { method: "POST", headers: { "content-type": "text/csv" }, body });

describe("POST /api/vocabulary", () => {
  test("creates a trimmed term with optional notes", async () => {
    const t = createTestApp();
    const entry = await add(t, "  Kubernetes ", " container orchestrator ");
    expect(entry).toMatchObject({ term: "Kubernetes", notes: "container orchestrator" });
    expect((await add(t, "PostgreSQL")).notes).toBeNull();
    expect(t.events.map((event) => [event.type, event.action])).toEqual([
      ["vocabulary.changed", "created"],
      ["vocabulary.changed", "created"],
    ]);
  });

  test("returns 409 for a term that exists in another letter case", async () => {
    const t = createTestApp();
    await add(t, "Kubernetes");
    const res = await t.json("/api/vocabulary", "POST", { term: "KUBERNETES" });
    expect(res.status).toBe(409);
    expect((await errorOf(res)).code).toBe("conflict");
  });

  test.each([
    ["a blank term", { term: " " }, "term"],
    ["a 201-character term", { term: "t".repeat(201) }, "term"],
    ["1001 characters of notes", { term: "t", notes: "n".repeat(1001) }, "notes"],
    ["numeric notes", { term: "t", notes: 3 }, "notes"],
    ["an unknown field", { term: "t", weight: 2 }, "weight"],
  ])("returns 400 for %s", async (_, body, field) => {
    const res = await createTestApp().json("/api/vocabulary", "POST", body);
    expect(res.status).toBe(400);
    expect(((await errorOf(res)).details as { path: string }[]).map((issue) => issue.path)).toContain(field);
  });
});

describe("/api/vocabulary/:id", () => {
  test("gets, patches (null clears notes) and deletes, publishing each change", async () => {
    const t = createTestApp();
    const entry = await add(t, "svc", "the server");
    expect(await (await t.request(`/api/vocabulary/${entry.id}`)).json()).toEqual(entry);
    const patched = await t.json(`/api/vocabulary/${entry.id}`, "PATCH", { notes: null });
    expect(await patched.json()).toMatchObject({ term: "svc", notes: null });
    expect((await t.request(`/api/vocabulary/${entry.id}`, { method: "DELETE" })).status).toBe(204);
    expect(t.events.map((event) => event.action)).toEqual(["created", "updated", "deleted"]);
    expect(t.events.every((event) => event.id === entry.id)).toBe(true);
  });

  test("404 for unknown ids, 400 for malformed ids and empty patches", async () => {
    const t = createTestApp();
    const entry = await add(t, "svc");
    expect((await t.request("/api/vocabulary/77")).status).toBe(404);
    expect((await t.request("/api/vocabulary/77", { method: "DELETE" })).status).toBe(404);
    expect((await t.json("/api/vocabulary/77", "PATCH", { term: "x" })).status).toBe(404);
    expect((await t.request("/api/vocabulary/seven")).status).toBe(400);
    expect((await t.json(`/api/vocabulary/${entry.id}`, "PATCH", {})).status).toBe(400);
  });
});

describe("GET /api/vocabulary", () => {
  test("pages, searches terms and notes literally, orders by term", async () => {
    const t = createTestApp();
    for (const [term, notes] of [
      ["gRPC", "remote calls"],
      ["snake_case", "naming"],
      ["snakecase", "100% wrong"],
      ["Ñandú", "a bird"],
    ] as const) {
      await add(t, term, notes);
    }
    expect((await list(t, "?search=e_c")).items.map((item) => item.term)).toEqual(["snake_case"]);
    expect((await list(t, "?search=100%25")).items.map((item) => item.term)).toEqual(["snakecase"]);
    expect((await list(t, "?search=%C3%B1AND")).items.map((item) => item.term)).toEqual(["Ñandú"]);
    const page = await list(t, "?orderBy=term&limit=2&offset=2");
    expect(page).toMatchObject({ total: 4, limit: 2, offset: 2 });
    expect(page.items.map((item) => item.term)).toEqual(["snakecase", "Ñandú"]);
    expect((await list(t, "?offset=99")).items).toEqual([]);
  });

  test.each(["?limit=0", "?limit=501", "?orderBy=notes"])("returns 400 for %s", async (query) => {
    expect((await createTestApp().request(`/api/vocabulary${query}`)).status).toBe(400);
  });
});

describe("vocabulary import and export", () => {
  test("imports a JSON array of strings and objects", async () => {
    const t = createTestApp();
    const res = await t.json("/api/vocabulary/import", "POST", [
      "Kubernetes",
      { term: "gRPC", notes: "RPC" },
    ]);
    expect(await res.json()).toEqual({ created: 2, updated: 0, unchanged: 0, deleted: 0 });
    expect(t.events.at(-1)).toMatchObject({ type: "vocabulary.changed", action: "imported", created: 2 });
  });

  test("imports CSV with only a term column, keeping existing notes", async () => {
    const t = createTestApp();
    await add(t, "gRPC", "remote calls");
    const res = await csv(t, "term\ngrpc\n\nKubernetes\n");
    expect(await res.json()).toEqual({ created: 1, updated: 1, unchanged: 0, deleted: 0 });
    const items = (await list(t, "?orderBy=term")).items;
    expect(items.map((item) => [item.term, item.notes])).toEqual([
      ["grpc", "remote calls"],
      ["Kubernetes", null],
    ]);
  });

  test("rejects the whole file when a row is bad", async () => {
    const t = createTestApp();
    const res = await csv(t, `term,notes\nok,\n"",blank\nOK,dup\nlong,${"n".repeat(1001)}\n`);
    expect(res.status).toBe(400);
    const details = (await errorOf(res)).details as { errors: { line: number }[] };
    expect(details.errors.map((problem) => problem.line)).toEqual([3, 4, 5]);
    expect((await list(t)).total).toBe(0);
  });

  test("CSV export round-trips notes with commas, quotes and line breaks", async () => {
    const source = createTestApp();
    await add(source, "Zoë", 'say "zo-ee",\nnot "zoe"');
    await add(source, "naïve");
    const res = await source.request("/api/vocabulary/export?format=csv");
    expect(res.headers.get("content-disposition")).toMatch(/filename="svc-vocabulary-[\d-]+\.csv"/);
    const target = createTestApp();
    expect((await csv(target, await res.text())).status).toBe(200);
    const json = async (t: TestApp) => (await t.request("/api/vocabulary/export")).json();
    expect(await json(target)).toEqual(await json(source));
    expect(await json(target)).toEqual([
      { term: "naïve", notes: null },
      { term: "Zoë", notes: 'say "zo-ee",\nnot "zoe"' },
    ]);
  });

  test("an import past 10 000 terms is 413", async () => {
    const t = createTestApp();
    t.services.vocabulary.importAll(Array.from({ length: 10_000 }, (_, i) => ({ term: `t${i}` })));
    const res = await t.json("/api/vocabulary/import", "POST", ["one more"]);
    expect(res.status).toBe(413);
    expect((await errorOf(res)).code).toBe("limit_exceeded");
    expect((await t.json("/api/vocabulary", "POST", { term: "one more" })).status).toBe(413);
  });
});
