import type { Migration } from "../migrate.ts";

export const settingsMigration: Migration = {
  version: 1,
  name: "settings",
  up(db) {
    db.run(`CREATE TABLE settings (
      key TEXT PRIMARY KEY NOT NULL,
      value TEXT NOT NULL,
      updated_at TEXT NOT NULL
    ) STRICT`);
  },
};
