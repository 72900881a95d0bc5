import type { Database } from "bun:sqlite";

/** What each plugin stores: a JSON text per key. */
export interface PluginStorageRepo {
  /** The JSON text stored under `key` for `plugin`, or null. */
  find(plugin: string, key: string): string | null;
  save(plugin: string, key: string, value: string, updatedAt: string): void;
  remove(plugin: string, key: string): boolean;
  keys(plugin: string): string[];
  /** Bytes of JSON text `plugin` stores in all, not counting `exceptKey` (the one being replaced). */
  usedBytes(plugin: string, exceptKey: string): number;
  /** Deletes everything `plugin` stored; returns how many values went. */
  purge(plugin: string): number;
}

export function createPluginStorageRepo(db: Database): PluginStorageRepo {
  const find = db.query<{ value: string }, [string, string]>(
    "SELECT value FROM plugin_storage WHERE plugin = ? AND key = ?",
  );
  const upsert = db.query<never, [string, string, string, string]>(
    `INSERT INTO plugin_storage (plugin, key, value, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (plugin, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  );
  const del = db.query<never, [string, string]>("DELETE FROM plugin_storage WHERE plugin = ? AND key = ?");
  const keys = db.query<{ key: string }, [string]>(
    "SELECT key FROM plugin_storage WHERE plugin = ? ORDER BY key",
  );
  const used = db.query<{ n: number }, [string, string]>(
    "SELECT coalesce(sum(length(CAST(value AS BLOB))), 0) AS n FROM plugin_storage WHERE plugin = ? AND key != ?",
  );
  const purge = db.query<never, [string]>("DELETE FROM plugin_storage WHERE plugin = ?");
  return {
    find: (plugin, key) => find.get(plugin, key)?.value ?? null,
    save(plugin, key, value, updatedAt) {
      upsert.run(plugin, key, value, updatedAt);
    },
    remove: (plugin, key) => del.run(plugin, key).changes > 0,
    keys: (plugin) => keys.all(plugin).map((row) => row.key),
    usedBytes: (plugin, exceptKey) => used.get(plugin, exceptKey)?.n ?? 0,
    purge: (plugin) => purge.run(plugin).changes,
  };
}
