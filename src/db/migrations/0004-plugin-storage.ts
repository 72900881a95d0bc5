import type { Migration } from "../migrate.ts";

/**
 * Plugin storage: JSON values keyed by (plugin package name, key), apart from the settings so a
 * plugin can never read or overwrite them, and so uninstall can keep or purge one plugin's data.
 */
export const pluginStorageMigration: Migration = {
  version: 4,
  name: "plugin-storage",
  up(db) {
    db.run(`CREATE TABLE plugin_storage (
      plugin TEXT NOT NULL,
      key TEXT NOT NULL,
      value TEXT NOT NULL CHECK (json_valid(value)),
      updated_at TEXT NOT NULL,
      PRIMARY KEY (plugin, key)
    ) STRICT, WITHOUT ROWID`);
  },
};
