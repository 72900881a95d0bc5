import { describe, expect, test } from "bun:test";
import { openDatabase } from "../../src/db/database.ts";
import { runMigrations } from "../../src/db/migrate.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import { createVocabularyRepo } from "../../src/db/vocabulary-repo.ts";

function fresh() {
  const db = openDatabase(":memory:", { migrations });
  runMigrations(db, migrations);
  return createVocabularyRepo(db);
}

describe("vocabulary repo", () => {
  test("terms() lists the newest first", () => {
    const repo = fresh();
    repo.importAll([{ term: "Kubernetes" }]);
    repo.create({ term: "PostgreSQL" });
    expect(repo.terms()).toEqual(["PostgreSQL", "Kubernetes"]);
  });

  test("importAll keeps notes when the item has none and clears them on null or blank", () => {
    const repo = fresh();
    repo.importAll([
      { term: "a", notes: "first" },
      { term: "b", notes: "second" },
      { term: "c", notes: "third" },
    ]);
    const summary = repo.importAll([{ term: "A" }, { term: "b", notes: null }, { term: "c", notes: "  " }]);
    expect(summary).toEqual({ created: 0, updated: 3, unchanged: 0, deleted: 0 });
    expect(repo.exportAll()).toEqual([
      { term: "A", notes: "first" },
      { term: "b", notes: null },
      { term: "c", notes: null },
    ]);
  });

  test("update keeps notes unless sent; version() moves only on change", () => {
    const repo = fresh();
    const entry = repo.create({ term: "svc", notes: "the server" });
    const before = repo.version();
    expect(repo.update(entry.id, { term: "SVC" })).toMatchObject({ term: "SVC", notes: "the server" });
    expect(repo.version()).toBeGreaterThan(before);
    expect(repo.update(entry.id + 1, { term: "x" })).toBeNull();
  });

  test("a duplicate in another letter case is a conflict naming the stored term", () => {
    const repo = fresh();
    repo.create({ term: "Ångström" });
    expect(() => repo.create({ term: "ÅNGSTRÖM" })).toThrow('already in the vocabulary as "Ångström"');
  });
});
