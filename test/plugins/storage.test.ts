import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/database.ts";
import { runMigrations } from "../../src/db/migrate.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import { createPluginStorageRepo } from "../../src/db/plugin-storage-repo.ts";
import { createPluginStorage, PluginStorageError } from "../../src/plugins/storage.ts";
import { pluginsDirWith, startPluginApp } from "../helpers/plugins.ts";

function memoryRepo() {
  const db = openDatabase(":memory:", { migrations });
  runMigrations(db, migrations);
  return createPluginStorageRepo(db);
}

describe("plugin storage", () => {
  test("values persist across a restart of the server", async () => {
    const dbPath = join(mkdtempSync(join(tmpdir(), "svc-storage-")), "svc.db");
    const pluginsDir = pluginsDirWith("fx-storage");
    const first = await startPluginApp({ pluginsDir, dbPath, entries: ["@fx/storage"] });
    const put = await first.json("/api/plugins/fx-storage/values/colour", "PUT", {
      name: "teal",
      tags: ["a"],
    });
    expect(put.status).toBe(200);
    await first.plugins.stop();
    first.db.close();

    const second = await startPluginApp({ pluginsDir, dbPath });
    const res = await second.request("/api/plugins/fx-storage/values/colour");
    expect(await res.json()).toEqual({ value: { name: "teal", tags: ["a"] } });
    const boots = await second.request("/api/plugins/fx-storage/values/boots");
    expect(await boots.json()).toEqual({ value: 2 });
    second.db.close();
  });

  test("get answers undefined for a key never stored", async () => {
    const app = await startPluginApp({ fixtures: ["fx-storage"], entries: ["@fx/storage"] });
    const res = await app.request("/api/plugins/fx-storage/values/never");
    expect(await res.json()).toEqual({ value: "<undefined>" });
  });

  test("a value over the size limit is refused with an error the plugin catches", async () => {
    const app = await startPluginApp({ fixtures: ["fx-storage"], entries: ["@fx/storage"] });
    const res = await app.request("/api/plugins/fx-storage/too-large");
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ stored: false, code: "value_too_large" });
  });

  test("a plugin cannot read another plugin's values, whatever name or key it uses", async () => {
    const app = await startPluginApp({
      fixtures: ["fx-storage", "fx-snoop"],
      entries: ["@fx/storage", "@fx/snoop"],
    });
    await app.json("/api/plugins/fx-storage/values/secret", "PUT", "s3cret");
    const res = await app.request("/api/plugins/fx-snoop/snoop");
    const body = (await res.json()) as { found: Record<string, unknown>; keys: string[] };
    expect(Object.values(body.found).every((value) => value === null)).toBe(true);
    expect(body.keys).toEqual([]);
  });
});

describe("createPluginStorage", () => {
  test("stores JSON values per plugin, lists and deletes keys", async () => {
    const repo = memoryRepo();
    const a = createPluginStorage(repo, "@a/one");
    const b = createPluginStorage(repo, "@b/two");
    await a.set("k", { n: 1 });
    await b.set("k", [1, 2]);
    expect(await a.get("k")).toEqual({ n: 1 });
    expect(await b.get("k")).toEqual([1, 2]);
    expect(await a.keys()).toEqual(["k"]);
    expect(await a.delete("k")).toBe(true);
    expect(await a.delete("k")).toBe(false);
    expect(await a.get("k")).toBeUndefined();
    expect(await b.get("k")).toEqual([1, 2]);
  });

  test.each([
    ["an empty key", "", 1, "invalid_key"],
    ["undefined", "k", undefined, "invalid_value"],
    ["a BigInt", "k", 10n, "invalid_value"],
    ["a value over the limit", "k", "x".repeat(2000), "value_too_large"],
  ])("refuses %s with a PluginStorageError", async (_what, key, value, code) => {
    const storage = createPluginStorage(memoryRepo(), "@a/one", { maxValueBytes: 1000, maxTotalBytes: 5000 });
    const error = await storage.set(key, value).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PluginStorageError);
    expect((error as PluginStorageError).code as string).toBe(code);
  });

  test("refuses a write that would take the plugin over its total, counting a replaced value once", async () => {
    const storage = createPluginStorage(memoryRepo(), "@a/one", { maxValueBytes: 1000, maxTotalBytes: 2100 });
    await storage.set("a", "x".repeat(900));
    await storage.set("b", "x".repeat(900));
    await storage.set("b", "y".repeat(900));
    const error = await storage.set("c", "x".repeat(900)).catch((caught: unknown) => caught);
    expect((error as PluginStorageError).code).toBe("storage_full");
  });
});
