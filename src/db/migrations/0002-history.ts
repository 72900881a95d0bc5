import type { Migration } from "../migrate.ts";

// Owned by the Data APIs work (history): filled in before the first release.
export const historyMigration: Migration = {
  version: 2,
  name: "history",
  up() {},
};
