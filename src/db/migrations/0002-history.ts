import type { Database } from "bun:sqlite";
import type { Migration } from "../migrate.ts";

/**
 * Transcription history with an FTS5 index. The index is an external-content table kept in step
 * by triggers, so the text is stored once and search stays fast on large histories.
 *
 * Ids follow time: inserts never set `created_at` earlier than the newest row (history-repo.ts)
 * and AUTOINCREMENT never reuses an id, so "newest first" is rowid order, which FTS5 walks
 * without materialising its matches, and a date range is an id range.
 */
export const historyMigration: Migration = {
  version: 2,
  name: "history",
  up(db) {
    db.run(`CREATE TABLE history (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
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
    // Creation order, date ranges and per-day counts, without reading the texts.
    db.run("CREATE INDEX history_created_at ON history (created_at, id, word_count)");
    db.run("CREATE INDEX history_audio_duration ON history (audio_duration_ms)");
    db.run("CREATE INDEX history_processing ON history (processing_ms)");
    db.run("CREATE INDEX history_word_count ON history (word_count)");
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
    createTotals(db);
  },
};

/** Running totals kept by triggers, so the stats never scan the whole history. */
function createTotals(db: Database): void {
  db.run(`CREATE TABLE history_totals (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    sessions INTEGER NOT NULL,
    words INTEGER NOT NULL,
    audio_ms INTEGER NOT NULL,
    processing_ms INTEGER NOT NULL
  ) STRICT`);
  db.run("INSERT INTO history_totals (id, sessions, words, audio_ms, processing_ms) VALUES (1, 0, 0, 0, 0)");
  const add = (sign: "+" | "-", row: "new" | "old") =>
    `UPDATE history_totals SET sessions = sessions ${sign} 1, words = words ${sign} ${row}.word_count,
      audio_ms = audio_ms ${sign} ${row}.audio_duration_ms, processing_ms = processing_ms ${sign} ${row}.processing_ms`;
  db.run(`CREATE TRIGGER history_totals_insert AFTER INSERT ON history BEGIN ${add("+", "new")}; END`);
  db.run(`CREATE TRIGGER history_totals_delete AFTER DELETE ON history BEGIN ${add("-", "old")}; END`);
  db.run(`CREATE TRIGGER history_totals_update AFTER UPDATE OF word_count, audio_duration_ms, processing_ms
    ON history BEGIN ${add("-", "old")}; ${add("+", "new")}; END`);
}
