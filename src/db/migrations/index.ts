import type { Migration } from "../migrate.ts";
import { settingsMigration } from "./0001-settings.ts";

/** Every schema step, in order. A compiled binary cannot glob its sources, so they are listed here. */
export const migrations: readonly Migration[] = [settingsMigration];
