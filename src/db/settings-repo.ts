import type { Database } from "bun:sqlite";

/** One stored setting; `value` is the JSON text of the value. */
export interface SettingRow {
  key: string;
  value: string;
  updated_at: string;
}

export interface SettingsRepo {
  listStored(): SettingRow[];
  findStored(key: string): SettingRow | null;
  /** Inserts or replaces `key` with the JSON text `value`. */
  save(key: string, value: string, updatedAt: string): void;
  /** True when a row was removed. */
  remove(key: string): boolean;
  countWhereKeyNotIn(keys: readonly string[]): number;
}

export function createSettingsRepo(db: Database): SettingsRepo {
  const list = db.query<SettingRow, []>("SELECT key, value, updated_at FROM settings ORDER BY key");
  const find = db.query<SettingRow, [string]>("SELECT key, value, updated_at FROM settings WHERE key = ?");
  const upsert = db.query<never, [string, string, string]>(
    `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  );
  const del = db.query<never, [string]>("DELETE FROM settings WHERE key = ?");
  const count = db.query<{ n: number }, [string]>(
    "SELECT count(*) AS n FROM settings WHERE key NOT IN (SELECT value FROM json_each(?))",
  );
  return {
    listStored: () => list.all(),
    findStored: (key) => find.get(key),
    save(key, value, updatedAt) {
      upsert.run(key, value, updatedAt);
    },
    remove: (key) => del.run(key).changes > 0,
    countWhereKeyNotIn: (keys) => count.get(JSON.stringify(keys))?.n ?? 0,
  };
}
