import { describe, expect, test } from "bun:test";
import type { HistoryItem, NewHistoryEntry } from "../../src/history/items.ts";
import type { Page } from "../../src/lists.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import type { ErrorBody } from "../helpers/errors.ts";

const entry = (finalText: string, extra: Partial<NewHistoryEntry> = {}): NewHistoryEntry => ({
  rawText: finalText.toLowerCase(),
  finalText,
  engine: "whisper",
  model: "base",
  language: "en",
  audioDurationMs: 2000,
  processingMs: 300,
  ...extra,
});

function seed(t: TestApp, texts: string[], start = Date.parse("2025-01-01T12:00:00Z")): number[] {
  return texts.map((text, index) => {
    const id = t.services.history.record(entry(text, { createdAt: new Date(start + index * 3_600_000) }));
    if (id === null) throw new Error("history is paused");
    return id;
  });
}

async function list(t: TestApp, query: string): Promise<Page<HistoryItem>> {
  const res = await t.request(`/api/history?${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Page<HistoryItem>;
}

const texts = (page: Page<HistoryItem>) => page.items.map((item) => item.finalText);

describe("history.record (used by the dictation pipeline)", () => {
  test("returns the new id, stores camelCase fields and publishes history.created", async () => {
    const t = createTestApp();
    const id = t.services.history.record(
      entry("Hello there.", {
        cleanedText: "Hello there",
        appContext: { app: "Slack", title: "#general", url: "" },
        formatId: 3,
        formatLabel: "Team chat",
      }),
    );
    expect(id).toBeGreaterThan(0);
    const item = (await (await t.request(`/api/history/${id}`)).json()) as HistoryItem;
    expect(item).toMatchObject({
      id,
      rawText: "hello there.",
      cleanedText: "Hello there",
      finalText: "Hello there.",
      wordCount: 2,
      audioDurationMs: 2000,
      processingMs: 300,
      appContext: { app: "Slack", title: "#general" },
      formatId: 3,
      formatLabel: "Team chat",
    });
    expect(item.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(t.events).toEqual([expect.objectContaining({ type: "history.created", id })]);
  });

  test("keeps cleanedText only when it differs from the final text", () => {
    const t = createTestApp();
    const id = t.services.history.record(entry("Same.", { cleanedText: "Same." })) ?? 0;
    expect(t.services.history.get(id).cleanedText).toBeNull();
  });

  test("writes nothing and returns null while history_paused is on", async () => {
    const t = createTestApp();
    await t.json("/api/settings/history_paused", "PUT", { value: true });
    expect(t.services.history.record(entry("Private."))).toBeNull();
    expect((await list(t, "")).total).toBe(0);
  });
});

describe("GET /api/history", () => {
  test("pages newest first by default", async () => {
    const t = createTestApp();
    seed(t, ["One.", "Two.", "Three.", "Four.", "Five."]);
    const first = await list(t, "limit=2");
    expect(texts(first)).toEqual(["Five.", "Four."]);
    expect(first).toMatchObject({ total: 5, limit: 2, offset: 0 });
    expect(texts(await list(t, "limit=2&offset=4"))).toEqual(["One."]);
    const past = await list(t, "limit=2&offset=10");
    expect(past).toMatchObject({ items: [], total: 5, offset: 10 });
  });

  test("orders by another field in either direction, ties broken by id", async () => {
    const t = createTestApp();
    t.services.history.record(entry("Long.", { audioDurationMs: 9000 }));
    t.services.history.record(entry("Short.", { audioDurationMs: 1000 }));
    t.services.history.record(entry("Also short.", { audioDurationMs: 1000 }));
    expect(texts(await list(t, "orderBy=audioDurationMs:asc"))).toEqual(["Short.", "Also short.", "Long."]);
    expect(texts(await list(t, "orderBy=audioDurationMs:desc"))).toEqual(["Long.", "Also short.", "Short."]);
  });

  test.each([
    "limit=0",
    "limit=501",
    "limit=ten",
    "offset=-1",
    "orderBy=rawText",
    "orderBy=createdAt:sideways",
    "from=yesterday",
    "to=2025-13-01",
    "from=2026-02-30",
    "to=2025-02-29",
    "from=2025-04-31",
    `from=${encodeURIComponent("2025-01-01T24:00:00Z")}`,
    `to=${encodeURIComponent("2025-02-30T08:00:00+01:00")}`,
    "from=2025-01-01T10:00:00",
    "from=2025-02-01&to=2025-01-01",
  ])("400 invalid_query for %s", async (query) => {
    const t = createTestApp();
    const res = await t.request(`/api/history?${query}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("invalid_query");
    expect(Array.isArray(body.error.details)).toBe(true);
  });

  test.each([
    "from=2024-02-29",
    "to=2024-02-29",
    `from=${encodeURIComponent("2025-12-31T23:59:59.999-12:00")}`,
  ])("%s is a real date and accepted", async (query) => {
    expect((await createTestApp().request(`/api/history?${query}`)).status).toBe(200);
  });

  test("filters by date (whole UTC days, inclusive) and by instant", async () => {
    const t = createTestApp();
    const day = Date.parse("2025-01-01T00:00:00Z");
    for (const [text, hours] of [
      ["Dec 31.", -1],
      ["Jan 1 morning.", 1],
      ["Jan 1 night.", 23.5],
      ["Jan 2.", 25],
    ] as const) {
      t.services.history.record(entry(text, { createdAt: new Date(day + hours * 3_600_000) }));
    }
    expect(texts(await list(t, "from=2025-01-01&to=2025-01-01"))).toEqual(["Jan 1 night.", "Jan 1 morning."]);
    expect(texts(await list(t, "from=2025-01-02"))).toEqual(["Jan 2."]);
    expect(texts(await list(t, "to=2024-12-31"))).toEqual(["Dec 31."]);
    const local = await list(
      t,
      `from=${encodeURIComponent("2025-01-01T02:00:00+02:00")}&to=2025-01-01T01:00:00Z`,
    );
    expect(texts(local)).toEqual(["Jan 1 morning."]);
  });
});

describe("GET /api/history?search=", () => {
  const corpus = [
    "Send the quarterly report to Anna.",
    "Reply to Zoë about the café menu.",
    "We are 50% done with the migration.",
    "Rename user_id to account_id.",
    "The userXid column is gone.",
    'She said "ship it" AND left.',
    "Call NEAR the end of day.",
  ];

  test.each([
    ["quarterly", ["Send the quarterly report to Anna."]],
    ["QUART", ["Send the quarterly report to Anna."]],
    ["report anna", ["Send the quarterly report to Anna."]],
    ["zoe cafe", ["Reply to Zoë about the café menu."]],
    ["anna zoë", []],
    ["%", ["We are 50% done with the migration."]],
    ["50%", ["We are 50% done with the migration."]],
    ["_", ["Rename user_id to account_id."]],
    ["user_id", ["Rename user_id to account_id."]],
    ['"', ['She said "ship it" AND left.']],
    ['"ship', ['She said "ship it" AND left.']],
    ["AND", ['She said "ship it" AND left.']],
    ["NEAR(", ["Call NEAR the end of day."]],
    ["*", []],
    ["- ^ : ( )", []],
    ["report OR menu", []],
  ])("%j finds %j", async (search, expected) => {
    const t = createTestApp();
    seed(t, corpus);
    const page = await list(t, `search=${encodeURIComponent(search)}`);
    expect(texts(page).sort()).toEqual([...expected].sort());
    expect(page.total).toBe(expected.length);
  });

  test("searches the raw text too and combines with paging and dates", async () => {
    const t = createTestApp();
    seed(t, ["A.", "B.", "C."]);
    t.services.history.record(
      entry("Tidy.", { rawText: "um so like tidy", createdAt: new Date("2025-02-01") }),
    );
    t.services.history.record(entry("Tidy again.", { rawText: "um tidy again" }));
    expect(texts(await list(t, "search=um&limit=1"))).toEqual(["Tidy again."]);
    expect((await list(t, "search=um&limit=1")).total).toBe(2);
    expect(texts(await list(t, "search=um&to=2025-02-01"))).toEqual(["Tidy."]);
  });

  test("a search longer than 200 characters is a 400", async () => {
    const t = createTestApp();
    expect((await t.request(`/api/history?search=${"a".repeat(201)}`)).status).toBe(400);
  });
});

describe("GET /api/history/:id", () => {
  test.each(["abc", "0", "-1", "1.5", "1e3", "99999999999999999999"])("400 for id %p", async (id) => {
    const t = createTestApp();
    const res = await t.request(`/api/history/${id}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error.code).toBe("invalid_request");
  });

  test("404 for an id that does not exist", async () => {
    const t = createTestApp();
    const res = await t.request("/api/history/42");
    expect(res.status).toBe(404);
    expect(((await res.json()) as ErrorBody).error.code).toBe("not_found");
  });
});

describe("DELETE /api/history/:id", () => {
  test("deletes the entry, drops it from search and publishes history.deleted", async () => {
    const t = createTestApp();
    const [id] = seed(t, ["Forget this sentence."]);
    const res = await t.request(`/api/history/${id}`, { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(t.events.at(-1)).toMatchObject({ type: "history.deleted", id });
    expect((await list(t, "search=forget")).total).toBe(0);
    expect((await t.request(`/api/history/${id}`, { method: "DELETE" })).status).toBe(404);
  });

  test("400 for an invalid id", async () => {
    const t = createTestApp();
    expect((await t.request("/api/history/x", { method: "DELETE" })).status).toBe(400);
  });
});

describe("DELETE /api/history", () => {
  test("deletes everything, empties the index and publishes history.cleared", async () => {
    const t = createTestApp();
    seed(t, ["One thing.", "Another thing."]);
    const res = await t.request("/api/history", { method: "DELETE" });
    expect(await res.json()).toEqual({ deleted: 2 });
    expect(t.events.at(-1)).toMatchObject({ type: "history.cleared", deleted: 2 });
    expect((await list(t, "search=thing")).total).toBe(0);
    const [id] = seed(t, ["A new thing."]);
    expect(texts(await list(t, "search=thing"))).toEqual(["A new thing."]);
    expect(id).toBeGreaterThan(0);
  });
});
