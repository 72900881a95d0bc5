import type { Migration } from "../migrate.ts";

/**
 * Transcription history with an FTS5 index. The index is an external-content table kept in step
 * by triggers, so the text is stored once and search stays fast on large histories.
 */
export const historyMigration: Migration = {
  version: 2,
  name: "history",
  up(db) {
    db.run(`CREATE TABLE history (
      id INTEGER PRIMARY KEY,
      raw_text TEXT NOT NULL,
      cleaned_text TEXT,
      final_text TEXT NOT NULL,
      word_count INTEGER NOT NULL,
      language TEXT,
      engine TEXT NOT NULL,
      model TEXT,
      audio_duration_ms INTEGER NOT NULL,
      processing_ms INTEGER NOT NULL,
      app_context TEXT,
      format_id INTEGER,
      format_label TEXT,
      created_at TEXT NOT NULL
    ) STRICT`);
    db.run("CREATE INDEX history_created_at ON history (created_at)");
    db.run(`CREATE VIRTUAL TABLE history_fts USING fts5(
      raw_text, final_text,
      content = 'history', content_rowid = 'id',
      tokenize = 'unicode61 remove_diacritics 2',
      prefix = '2 3'
    )`);
    db.run(`CREATE TRIGGER history_fts_insert AFTER INSERT ON history BEGIN
      INSERT INTO history_fts (rowid, raw_text, final_text) VALUES (new.id, new.raw_text, new.final_text);
    END`);
    db.run(`CREATE TRIGGER history_fts_delete AFTER DELETE ON history BEGIN
      INSERT INTO history_fts (history_fts, rowid, raw_text, final_text)
        VALUES ('delete', old.id, old.raw_text, old.final_text);
    END`);
    db.run(`CREATE TRIGGER history_fts_update AFTER UPDATE OF raw_text, final_text ON history BEGIN
      INSERT INTO history_fts (history_fts, rowid, raw_text, final_text)
        VALUES ('delete', old.id, old.raw_text, old.final_text);
      INSERT INTO history_fts (rowid, raw_text, final_text) VALUES (new.id, new.raw_text, new.final_text);
    END`);
  },
};
