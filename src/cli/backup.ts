import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { backupDatabaseFile } from "../db/database.ts";

/** Copies a database, live or not, to `target`; throws with a message for the operator. */
export function backupFile(dbPath: string, target: string): string {
  const destination = resolve(target);
  if (!existsSync(dbPath)) throw new Error(`no database at ${dbPath} (SVC_DB_PATH)`);
  if (existsSync(destination)) throw new Error(`${destination} already exists; choose a new file name`);
  backupDatabaseFile(dbPath, destination);
  return destination;
}
