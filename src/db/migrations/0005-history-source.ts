import type { Migration } from "../migrate.ts";

/**
 * Where a dictation came from: `api` (POST /api/transcribe, the console), `openai` (/v1, OpenAI's
 * clients), `live` (/api/dictate), `cli` (svc transcribe, svc dictate). Rows from before this step came through the API or the CLI,
 * which were not told apart: they read as `api`.
 */
export const historySourceMigration: Migration = {
  version: 5,
  name: "history-source",
  up(db) {
    db.run("ALTER TABLE history ADD COLUMN source TEXT NOT NULL DEFAULT 'api'");
  },
};
