import type { Migration } from "../migrate.ts";

/**
 * Console sessions get bounds (issue 38): each is bound to a check value its console keeps in the
 * page's own storage, which a page on another port cannot read or set, and records when it was
 * last used (the idle lifetime) and under which access mode it was made (a session made while keys
 * were off ends when they come back on). Keys record that mode too. Sessions made before this
 * have no check: they end here, and their consoles log in again once.
 */
export const sessionBoundsMigration: Migration = {
  version: 8,
  name: "session-bounds",
  up(db) {
    db.run("DROP TABLE access_sessions");
    db.run(`CREATE TABLE access_sessions (
      hash BLOB PRIMARY KEY,
      key_id TEXT NOT NULL REFERENCES access_keys (id) ON DELETE CASCADE,
      check_hash BLOB NOT NULL,
      created_at TEXT NOT NULL,
      seen_at TEXT NOT NULL,
      made_under TEXT NOT NULL
    ) STRICT, WITHOUT ROWID`);
    db.run("CREATE INDEX access_sessions_key ON access_sessions (key_id, created_at)");
    db.run("ALTER TABLE access_keys ADD COLUMN made_under TEXT NOT NULL DEFAULT 'keys'");
  },
};
