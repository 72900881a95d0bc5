import type { Migration } from "../migrate.ts";

/**
 * The caps that protect the server became environment variables (SVC_DICTATE_MAX_*,
 * SVC_WYOMING_MAX_*): a client must not raise them over the API. Their stored settings go.
 */
export const operatorLimitsMigration: Migration = {
  version: 7,
  name: "operator-limits",
  up(db) {
    db.run(`DELETE FROM settings WHERE key IN ('dictate_max_frame_bytes', 'dictate_max_sessions',
      'wyoming_max_connections', 'wyoming_max_header_bytes', 'wyoming_max_data_bytes',
      'wyoming_max_payload_bytes', 'wyoming_max_unread_bytes')`);
  },
};
