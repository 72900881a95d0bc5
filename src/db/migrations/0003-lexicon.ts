import type { Migration } from "../migrate.ts";

/**
 * Dictionary, vocabulary and formats. Case-insensitive uniqueness is enforced on a column
 * folded in JS (src/fold.ts): SQLite's NOCASE only folds ASCII. Built-in formats are
 * seeded at start by the formats repository (seedBuiltins), not here, so a release can add
 * built-ins without a migration.
 */
export const lexiconMigration: Migration = {
  version: 3,
  name: "dictionary-vocabulary-formats",
  up(db) {
    db.run(`CREATE TABLE dictionary (
      id INTEGER PRIMARY KEY,
      key TEXT NOT NULL,
      key_folded TEXT NOT NULL UNIQUE,
      value TEXT NOT NULL,
      usage_count INTEGER NOT NULL DEFAULT 0,
      last_used_at TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    ) STRICT`);
    db.run("CREATE INDEX dictionary_created_at ON dictionary (created_at)");
    db.run(`CREATE TABLE vocabulary (
      id INTEGER PRIMARY KEY,
      term TEXT NOT NULL,
      term_folded TEXT NOT NULL UNIQUE,
      notes TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    ) STRICT`);
    db.run(`CREATE TABLE formats (
      id INTEGER PRIMARY KEY,
      builtin_key TEXT UNIQUE,
      label TEXT NOT NULL,
      app_pattern TEXT NOT NULL,
      instructions TEXT NOT NULL,
      enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
      priority INTEGER NOT NULL DEFAULT 0,
      style TEXT NOT NULL CHECK (json_valid(style)),
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    ) STRICT`);
  },
};
