import type { Migration } from "../migrate.ts";

/**
 * Access control: the keys (a name, a role and the SHA-256 of the key, never the key), the
 * console's sessions and one-time login codes (their hashes), the stored SVC_AUTH choice, and the
 * name of the key each history row was made with (null: a trusted loopback client, or before keys).
 */
export const accessMigration: Migration = {
  version: 6,
  name: "access",
  up(db) {
    db.run(`CREATE TABLE access_keys (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      role TEXT NOT NULL CHECK (role IN ('admin', 'dictate')),
      hash BLOB NOT NULL,
      created_at TEXT NOT NULL,
      last_used_at TEXT
    ) STRICT, WITHOUT ROWID`);
    db.run(`CREATE TABLE access_sessions (
      hash BLOB PRIMARY KEY,
      key_id TEXT NOT NULL REFERENCES access_keys (id) ON DELETE CASCADE,
      created_at TEXT NOT NULL
    ) STRICT, WITHOUT ROWID`);
    db.run(`CREATE TABLE access_codes (
      hash BLOB PRIMARY KEY,
      key_id TEXT NOT NULL REFERENCES access_keys (id) ON DELETE CASCADE,
      expires_at TEXT NOT NULL
    ) STRICT, WITHOUT ROWID`);
    db.run(`CREATE TABLE access_state (
      name TEXT PRIMARY KEY,
      value TEXT NOT NULL
    ) STRICT, WITHOUT ROWID`);
    db.run("ALTER TABLE history ADD COLUMN key_name TEXT");
    db.run("CREATE INDEX history_key_name ON history (key_name, created_at)");
  },
};
