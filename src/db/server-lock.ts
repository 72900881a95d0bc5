import { Database } from "bun:sqlite";
import { dirname } from "node:path";
import { errorCode } from "../errors.ts";
import { ensurePrivateDir } from "../private-dir.ts";

/**
 * One server per database. Two servers on one file would keep two diverging copies of the
 * settings in memory and both run retention and plugins. The lock is an exclusive transaction on a
 * small SQLite file beside the database (`svc.db.lock`): it uses SQLite's own file locking, so the
 * operating system drops it when the process ends however it ends (kill -9 included), and a
 * restart never finds a stale lock. Readers of the database itself (`svc backup`) are unaffected.
 */
export interface ServerLock {
  readonly path: string;
  release(): void;
}

export class DatabaseInUseError extends Error {
  constructor(dbPath: string, lockPath: string) {
    super(
      `another svc server is using the database ${dbPath} (it holds ${lockPath}); stop it, or point SVC_DB_PATH at another file`,
    );
    this.name = "DatabaseInUseError";
  }
}

/**
 * Takes the lock for `dbPath`, or throws `DatabaseInUseError` at once when a live server holds it.
 * Undefined when the lock file cannot be made at all: opening the database then fails too, and
 * says why in terms of the database.
 */
export function lockDatabase(dbPath: string): ServerLock | undefined {
  const path = `${dbPath}.lock`;
  let db: Database;
  try {
    ensurePrivateDir(dirname(path));
    db = new Database(path, { create: true });
  } catch {
    return undefined;
  }
  try {
    db.run("PRAGMA busy_timeout = 0");
    db.run("BEGIN EXCLUSIVE");
  } catch (error) {
    db.close();
    if (errorCode(error) === "SQLITE_BUSY") throw new DatabaseInUseError(dbPath, path);
    throw error;
  }
  return {
    path,
    release() {
      db.run("ROLLBACK");
      db.close();
    },
  };
}
