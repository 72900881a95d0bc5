import { describe, expect, test } from "bun:test";
import { openDatabase } from "../../src/db/database.ts";
import { createDictionaryRepo } from "../../src/db/dictionary-repo.ts";
import { runMigrations } from "../../src/db/migrate.ts";
import { migrations } from "../../src/db/migrations/index.ts";

function fresh() {
  const db = openDatabase(":memory:", { migrations });
  runMigrations(db, migrations);
  return { db, repo: createDictionaryRepo(db) };
}

describe("dictionary repo: recordUsage", () => {
  test("adds each count and stamps lastUsedAt, ignoring unknown ids and non-positive counts", () => {
    const { repo } = fresh();
    const a = repo.create({ key: "a", value: "1" });
    const b = repo.create({ key: "b", value: "2" });
    const at = new Date("2025-03-01T12:00:00.000Z");
    repo.recordUsage(
      new Map([
        [a.id, 2],
        [b.id, 0],
        [999, 5],
      ]),
      at,
    );
    repo.recordUsage(new Map([[a.id, 1]]), at);
    expect(repo.get(a.id)).toMatchObject({
      usageCount: 3,
      lastUsedAt: at.toISOString(),
      updatedAt: a.updatedAt,
    });
    expect(repo.get(b.id)).toMatchObject({ usageCount: 0, lastUsedAt: null });
  });

  test("does not change version(): nothing for the pipeline to recompile", () => {
    const { repo } = fresh();
    const a = repo.create({ key: "a", value: "1" });
    const before = repo.version();
    repo.recordUsage(new Map([[a.id, 1]]));
    expect(repo.version()).toBe(before);
  });

  test("orders by usage", () => {
    const { repo } = fresh();
    const a = repo.create({ key: "a", value: "1" });
    const b = repo.create({ key: "b", value: "2" });
    repo.recordUsage(new Map([[b.id, 4]]));
    const page = repo.list({ limit: 10, offset: 0, orderBy: { field: "usageCount", direction: "DESC" } });
    expect(page.items.map((entry) => entry.id)).toEqual([b.id, a.id]);
  });
});

describe("dictionary repo: version()", () => {
  test("increases on create, update, delete and an import that changes something", () => {
    const { repo } = fresh();
    const seen = [repo.version()];
    const entry = repo.create({ key: "a", value: "1" });
    seen.push(repo.version());
    repo.update(entry.id, { value: "2" });
    seen.push(repo.version());
    repo.importAll([{ key: "b", value: "3" }]);
    seen.push(repo.version());
    repo.remove(entry.id);
    seen.push(repo.version());
    expect(new Set(seen).size).toBe(seen.length);
  });

  test("stays when nothing changed: a failed create, an unchanged import, deleting nothing", () => {
    const { repo } = fresh();
    repo.create({ key: "a", value: "1" });
    const before = repo.version();
    expect(() => repo.create({ key: "A", value: "x" })).toThrow("already in the dictionary");
    repo.importAll([{ key: "a", value: "1" }]);
    repo.remove(4242);
    expect(repo.version()).toBe(before);
  });
});

describe("dictionary repo: entries, exportAll, importAll", () => {
  test("entries() gives id, key and value for the matcher", () => {
    const { repo } = fresh();
    const entry = repo.create({ key: "btw", value: "by the way" });
    expect(repo.entries()).toEqual([{ id: entry.id, key: "btw", value: "by the way" }]);
  });

  test("importAll normalises like create and lets a later duplicate win", () => {
    const { repo } = fresh();
    const summary = repo.importAll([
      { key: "  new   york ", value: " NYC " },
      { key: "NEW YORK", value: "New York City" },
    ]);
    expect(summary).toEqual({ created: 1, updated: 1, unchanged: 0, deleted: 0 });
    expect(repo.exportAll()).toEqual([{ key: "NEW YORK", value: "New York City" }]);
  });

  test("importAll rolls back with the caller's transaction", () => {
    const { db, repo } = fresh();
    repo.create({ key: "keep", value: "1" });
    const restore = db.transaction(() => {
      repo.importAll([{ key: "other", value: "2" }], { mode: "replace" });
      throw new Error("a later step of the restore failed");
    });
    expect(() => restore()).toThrow("later step");
    expect(repo.exportAll()).toEqual([{ key: "keep", value: "1" }]);
  });

  test("importAll refuses to leave more than maxEntries and writes nothing", () => {
    const { repo } = fresh();
    repo.create({ key: "a", value: "1" });
    expect(() =>
      repo.importAll(
        [
          { key: "b", value: "2" },
          { key: "c", value: "3" },
        ],
        { maxEntries: 2 },
      ),
    ).toThrow("limit is 2");
    expect(repo.count()).toBe(1);
  });
});
