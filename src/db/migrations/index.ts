import type { Migration } from "../migrate.ts";
import { settingsMigration } from "./0001-settings.ts";
import { historyMigration } from "./0002-history.ts";
import { lexiconMigration } from "./0003-lexicon.ts";
import { pluginStorageMigration } from "./0004-plugin-storage.ts";
import { historySourceMigration } from "./0005-history-source.ts";
import { accessMigration } from "./0006-access.ts";
import { operatorLimitsMigration } from "./0007-operator-limits.ts";
import { sessionBoundsMigration } from "./0008-session-bounds.ts";

/** Every schema step, in order. A compiled binary cannot glob its sources, so they are listed here. */
export const migrations: readonly Migration[] = [
  settingsMigration,
  historyMigration,
  lexiconMigration,
  pluginStorageMigration,
  historySourceMigration,
  accessMigration,
  operatorLimitsMigration,
  sessionBoundsMigration,
];
