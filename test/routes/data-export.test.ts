import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { createDataTransfer, type DataSection } from "../../src/data/transfer.ts";
import type { Database } from "../../src/db/database.ts";
import { AppError } from "../../src/errors.ts";
import { createEventBus, type EventType } from "../../src/events.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import type { ErrorBody } from "../helpers/errors.ts";

type ExportDocument = Record<string, unknown> & { settings: Record<string, unknown> };

const exportFrom = async (t: TestApp) => (await (await t.request("/api/export")).json()) as ExportDocument;
const importInto = (t: TestApp, body: unknown, query = "") => t.json(`/api/import${query}`, "POST", body);

describe("GET /api/export", () => {
  test("is one versioned document with the stored settings, as a download", async () => {
    const t = createTestApp();
    t.services.settings.set("language", "de");
    t.services.settings.set("console.theme", "dark");
    const res = await t.request("/api/export");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toMatch(
      /^attachment; filename="svc-export-\d{4}-\d{2}-\d{2}\.json"$/,
    );
    const doc = (await res.json()) as ExportDocument;
    expect(doc).toMatchObject({ format: "svc-export", version: 1, app: { name: "svc" } });
    expect(doc.exportedAt).toMatch(/Z$/);
    expect(doc.settings).toEqual({ language: "de", "console.theme": "dark" });
  });

  test("never contains a secret", async () => {
    const t = createTestApp();
    t.services.settings.set("llm_api_key", "sk-export-secret");
    t.services.settings.set("remote_stt_api_key", "gsk-export-secret");
    const text = await (await t.request("/api/export")).text();
    expect(text).not.toContain("export-secret");
    expect(text).not.toContain("api_key");
  });
});

describe("POST /api/import", () => {
  test("restores an export into another server and announces each change", async () => {
    const source = createTestApp();
    source.services.settings.set("cleanup_mode", "llm");
    source.services.settings.set("plugins", [["@svc/profanity-filter", { preserveCase: false }]]);
    source.services.settings.set("console.theme", "dark");
    const target = createTestApp();
    const res = await importInto(target, await exportFrom(source));
    expect(res.status).toBe(200);
    const report = (await res.json()) as { mode: string; settings: { imported: string[] } };
    expect(report.mode).toBe("merge");
    expect(report.settings.imported.sort()).toEqual(["cleanup_mode", "console.theme", "plugins"]);
    expect(target.services.settings.get("cleanup_mode")).toBe("llm");
    expect((await exportFrom(target)).settings).toEqual((await exportFrom(source)).settings);
    const types = target.events.map((event) => event.type);
    expect(types.filter((type) => type === "settings.changed")).toHaveLength(3);
    expect(types.at(-1)).toBe("data.imported");
  });

  test("skips secrets in a hand-written document and reports them", async () => {
    const t = createTestApp();
    const res = await importInto(t, {
      format: "svc-export",
      version: 1,
      settings: { llm_api_key: "sk-smuggled", language: "fr" },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { settings: { skipped: string[] } }).settings.skipped).toEqual([
      "llm_api_key",
    ]);
    expect(t.services.settings.get("llm_api_key")).toBeNull();
    expect(t.services.settings.get("language")).toBe("fr");
    expect(JSON.stringify(t.events)).not.toContain("sk-smuggled");
  });

  test("replace resets stored settings the document does not name, but keeps secrets", async () => {
    const t = createTestApp();
    t.services.settings.set("language", "de");
    t.services.settings.set("console.theme", "dark");
    t.services.settings.set("llm_api_key", "sk-keep");
    const res = await importInto(
      t,
      { format: "svc-export", version: 1, settings: { stt_engine: "remote" } },
      "?mode=replace",
    );
    expect(((await res.json()) as { settings: { reset: string[] } }).settings.reset.sort()).toEqual([
      "console.theme",
      "language",
    ]);
    expect(t.services.settings.list()).toMatchObject({ language: "auto", stt_engine: "remote" });
    expect(t.services.settings.list()["console.theme"]).toBeUndefined();
    expect(t.services.settings.get("llm_api_key")).toBe("sk-keep");
    expect(t.events).toContainEqual(
      expect.objectContaining({ type: "settings.deleted", key: "console.theme" }),
    );
  });

  test.each([
    ["no format", { version: 1 }, "invalid_import"],
    ["another format", { format: "other-app", version: 1 }, "invalid_import"],
    ["a newer version", { format: "svc-export", version: 2 }, "invalid_import"],
    ["settings that are not an object", { format: "svc-export", version: 1, settings: [] }, "invalid_import"],
    [
      "an invalid setting",
      { format: "svc-export", version: 1, settings: { language: "fr", stt_engine: "vosk" } },
      "invalid_setting",
    ],
    [
      "an invalid client preference key",
      { format: "svc-export", version: 1, settings: { "Bad Key": 1 } },
      "invalid_setting_key",
    ],
  ])("400 for a document with %s, and nothing is written", async (_, body, code) => {
    const t = createTestApp();
    const res = await importInto(t, body);
    expect(res.status).toBe(400);
    const error = ((await res.json()) as ErrorBody).error;
    expect(error.code).toBe(code);
    if (code === "invalid_import") expect(Array.isArray(error.details)).toBe(true);
    expect(t.services.settings.get("language")).toBe("auto");
    expect(t.events).toHaveLength(0);
  });

  test("400 for malformed JSON and for an unknown mode", async () => {
    const t = createTestApp();
    const res = await t.request("/api/import", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(((await res.json()) as ErrorBody).error.code).toBe("invalid_json");
    const mode = await importInto(t, { format: "svc-export", version: 1 }, "?mode=overwrite");
    expect(mode.status).toBe(400);
  });
});

describe("the API reference of the import routes", () => {
  const describedAs = async (t: TestApp, method: string, path: string) => {
    const doc = (await (await t.request("/api/openapi.json")).json()) as {
      paths: Record<string, Record<string, { description: string }>>;
    };
    return doc.paths[path]?.[method]?.description ?? "";
  };

  test("names every error code POST /api/import answers with", async () => {
    const t = createTestApp();
    const doc = (settings: unknown) => JSON.stringify({ format: "svc-export", version: 1, settings });
    const bodies: [string, string][] = [
      ["", '{"format":"other"}'],
      ["", doc({ language: 5 })],
      ["", doc({ "Bad Key": 1 })],
      ["", doc({ "console.x": "x".repeat(20_000) })],
      ["", "{not json"],
      ["", `${"[".repeat(100)}${"]".repeat(100)}`],
      ["?mode=append", doc({})],
    ];
    const description = await describedAs(t, "post", "/api/import");
    for (const [query, body] of bodies) {
      const headers = { "content-type": "application/json" };
      const res = await t.request(`/api/import${query}`, { method: "POST", headers, body });
      const { code } = ((await res.json()) as ErrorBody).error;
      expect(description).toContain(`${res.status} ${code}`);
    }
    const plain = await t.request("/api/import", { method: "POST", body: doc({}) });
    const { code } = ((await plain.json()) as ErrorBody).error;
    expect(description).toContain(`${plain.status} ${code}`);
  });

  test("names every error code a dictionary or vocabulary import answers with", async () => {
    const t = createTestApp();
    const bodies = ['[{"key":""}]', '{"key":"a"}', "[not json", `[${"[".repeat(100)}${"]".repeat(100)}]`];
    for (const table of ["dictionary", "vocabulary"]) {
      const description = await describedAs(t, "post", `/api/${table}/import`);
      for (const body of bodies) {
        const res = await t.request(`/api/${table}/import`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        });
        expect(res.status).toBe(400);
        expect(description).toContain(((await res.json()) as ErrorBody).error.code);
      }
      const csv = await t.request(`/api/${table}/import`, {
        method: "POST",
        headers: { "content-type": "text/csv" },
        body: 'key,value\n"unclosed',
      });
      expect(description).toContain(((await csv.json()) as ErrorBody).error.code);
      const plain = await t.request(`/api/${table}/import`, {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body: "key,value\na,b",
      });
      expect(plain.status).toBe(415);
      expect(description).toContain(((await plain.json()) as ErrorBody).error.code);
    }
  });
});

describe("export and import of dictionary, vocabulary and formats", () => {
  async function populate(t: TestApp) {
    expect(
      (await t.json("/api/dictionary", "POST", { key: "my email", value: "me@example.com" })).status,
    ).toBe(201);
    expect((await t.json("/api/dictionary", "POST", { key: "brb", value: "be right back" })).status).toBe(
      201,
    );
    expect((await t.json("/api/vocabulary", "POST", { term: "Kubernetes", notes: "k8s" })).status).toBe(201);
    const format = { label: "Lab notebook", appPattern: "obsidian", instructions: "Bullet points." };
    expect((await t.json("/api/formats", "POST", format)).status).toBe(201);
    t.services.settings.set("language", "en");
  }
  const withoutTime = ({ exportedAt: _, ...doc }: ExportDocument) => doc;

  test("the export holds every list, and importing it elsewhere reproduces it exactly", async () => {
    const source = createTestApp();
    await populate(source);
    const doc = await exportFrom(source);
    expect(doc.dictionary).toEqual([
      { key: "brb", value: "be right back" },
      { key: "my email", value: "me@example.com" },
    ]);
    expect(doc.vocabulary).toEqual([{ term: "Kubernetes", notes: "k8s" }]);
    expect(doc.formats).toContainEqual(
      expect.objectContaining({ label: "Lab notebook", appPattern: "obsidian" }),
    );
    const target = createTestApp();
    const res = await importInto(target, doc);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      dictionary: { created: 2 },
      vocabulary: { created: 1 },
      formats: { created: 1 },
    });
    expect(withoutTime(await exportFrom(target))).toEqual(withoutTime(doc));
    const types = target.events.map((event) => event.type);
    for (const type of ["dictionary.changed", "vocabulary.changed", "formats.changed", "data.imported"]) {
      expect(types).toContain(type);
    }
    expect(target.events.find((event) => event.type === "dictionary.changed")).toMatchObject({
      action: "import",
      created: 2,
    });
  });

  test("importing the same document twice changes nothing the second time", async () => {
    const t = createTestApp();
    await populate(t);
    const res = await importInto(t, await exportFrom(t));
    expect(await res.json()).toMatchObject({
      dictionary: { created: 0, updated: 0, unchanged: 2 },
      formats: { created: 0, updated: 0, deleted: 0 },
    });
  });

  test("replace makes a list equal to the document; lists it leaves out are untouched", async () => {
    const t = createTestApp();
    await populate(t);
    const doc = { format: "svc-export", version: 1, dictionary: [{ key: "omw", value: "on my way" }] };
    const res = await importInto(t, doc, "?mode=replace");
    expect(await res.json()).toMatchObject({ dictionary: { created: 1, deleted: 2 } });
    const after = await exportFrom(t);
    expect(after.dictionary).toEqual([{ key: "omw", value: "on my way" }]);
    expect(after.vocabulary).toEqual([{ term: "Kubernetes", notes: "k8s" }]);
    expect(after.settings).toEqual({ language: "en" });
  });

  test("one bad row anywhere is a 400 naming its path, and nothing at all is written", async () => {
    const t = createTestApp();
    const before = await exportFrom(t);
    const res = await importInto(t, {
      format: "svc-export",
      version: 1,
      settings: { language: "de" },
      dictionary: [
        { key: "fine", value: "ok" },
        { key: "   ", value: "blank key" },
      ],
      vocabulary: [{ term: "Valid" }],
    });
    expect(res.status).toBe(400);
    const error = ((await res.json()) as ErrorBody).error;
    expect(error.code).toBe("invalid_import");
    expect(error.details).toContainEqual(expect.objectContaining({ path: "dictionary.1.key" }));
    expect(withoutTime(await exportFrom(t))).toEqual(withoutTime(before));
    expect(t.events).toHaveLength(0);
  });
});

/** A real section over its own table, standing in for a data set that can fail mid-import. */
function notesSection(db: Database): DataSection<{ text: string }> {
  db.run("CREATE TABLE notes (text TEXT NOT NULL UNIQUE) STRICT");
  return {
    item: v.object({ text: v.pipe(v.string(), v.minLength(1)) }),
    // A stand-in's own event, outside the product's list of event types.
    event: "notes.changed" as EventType,
    exportAll: () => db.query<{ text: string }, []>("SELECT text FROM notes ORDER BY text").all(),
    importAll(items, mode) {
      const deleted = mode === "replace" ? db.run("DELETE FROM notes").changes : 0;
      for (const item of items) {
        if (item.text === "boom") throw new AppError("limit_exceeded", "too many notes");
        db.run("INSERT INTO notes (text) VALUES (?)", [item.text]);
      }
      return { created: items.length, updated: 0, unchanged: 0, deleted };
    },
  };
}

describe("data transfer with sections", () => {
  function setup() {
    const t = createTestApp();
    const published: string[] = [];
    const events = createEventBus();
    events.subscribe((event) => published.push(event.type));
    const transfer = createDataTransfer({
      db: t.db,
      settings: t.services.settings,
      sections: { notes: notesSection(t.db) as DataSection },
      events,
      version: "1.2.3",
    });
    return { t, transfer, published };
  }

  test("exports and imports each section, validated by its item schema", () => {
    const { transfer, published } = setup();
    const report = transfer.importDocument(
      { format: "svc-export", version: 1, notes: [{ text: "a" }, { text: "b" }] },
      "merge",
    );
    expect(report).toMatchObject({ mode: "merge", notes: { created: 2 } });
    expect(transfer.exportDocument()).toMatchObject({
      notes: [{ text: "a" }, { text: "b" }],
      app: { version: "1.2.3" },
    });
    expect(published).toEqual(["notes.changed", "data.imported"]);
    expect(() =>
      transfer.importDocument({ format: "svc-export", version: 1, notes: [{ text: "" }] }, "merge"),
    ).toThrow(/notes\.0\.text/);
  });

  test("a failure in any section rolls back every section and the settings, and announces nothing", () => {
    const { t, transfer, published } = setup();
    const document = {
      format: "svc-export",
      version: 1,
      settings: { language: "de" },
      notes: [{ text: "kept?" }, { text: "boom" }],
    };
    expect(() => transfer.importDocument(document, "replace")).toThrow("too many notes");
    expect(transfer.exportDocument()).toMatchObject({ notes: [], settings: {} });
    expect(t.services.settings.get("language")).toBe("auto");
    expect(published).toEqual([]);
  });
});

describe("keys that valibot's record() would drop", () => {
  test("a client preference named constructor survives export and import", async () => {
    const source = createTestApp();
    expect((await source.json("/api/settings/constructor", "PUT", { value: "kept" })).status).toBe(200);
    const doc = await exportFrom(source);
    expect(Object.getOwnPropertyDescriptor(doc.settings, "constructor")?.value).toBe("kept");
    const target = createTestApp();
    expect((await importInto(target, doc)).status).toBe(200);
    const res = await target.request("/api/settings/constructor");
    expect(((await res.json()) as { value: unknown }).value).toBe("kept");
  });

  test("plugin options keep constructor and __proto__ keys as plain keys", async () => {
    const t = createTestApp();
    const res = await t.request("/api/settings/plugins", {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: '{"value":[["@x/a",{"constructor":1,"__proto__":{"a":1},"b":2}]]}',
    });
    expect(res.status).toBe(200);
    expect(JSON.stringify(t.services.settings.get("plugins"))).toBe(
      '[["@x/a",{"constructor":1,"__proto__":{"a":1},"b":2}]]',
    );
    expect(({} as Record<string, unknown>).a).toBeUndefined();
  });
});
