import type { Migration } from "../migrate.ts";

// Owned by the Data APIs work (dictionary, vocabulary, formats): filled in before the first release.
export const lexiconMigration: Migration = {
  version: 3,
  name: "dictionary-vocabulary-formats",
  up() {},
};
