import { Database } from "bun:sqlite";
import { closeSync, mkdirSync, openSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { type Migration, readSchemaVersion, refuseNewerDatabase } from "./migrate.ts";

export type { Database };

export interface OpenOptions {
  /** Migrations the database must not be newer than; checked before anything is written. */
  migrations: readonly Migration[];
  busyTimeoutMs?: number;
}

/**
 * Opens the one connection svc uses. WAL lets readers (backups, `svc backup`) run beside the
 * writer; synchronous=FULL means an acknowledged dictation survives a power cut, not only a crash.
 */
export function openDatabase(path: string, options: OpenOptions): Database {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { create: true, strict: true });
  try {
    // Check the version first: a database written by a newer svc is refused untouched.
    refuseNewerDatabase(readSchemaVersion(db), options.migrations);
    db.run(`PRAGMA busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
    if (path !== ":memory:") db.run("PRAGMA journal_mode = WAL");
    db.run("PRAGMA synchronous = FULL");
    db.run("PRAGMA foreign_keys = ON");
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

export function sqliteVersion(db: Database): string {
  const row = db.query<{ version: string }, []>("SELECT sqlite_version() AS version").get();
  return row?.version ?? "unknown";
}

/**
 * A consistent copy of a live database (VACUUM INTO reads one snapshot under WAL). The copy holds
 * the user's dictation history, so it is readable by its owner only: the file is made empty with
 * mode 0600 first (VACUUM INTO fills an empty file), and `wx` refuses one that already exists.
 */
export function backupDatabase(db: Database, target: string): void {
  mkdirSync(dirname(target), { recursive: true });
  closeSync(openSync(target, "wx", 0o600));
  try {
    db.run("VACUUM INTO ?", [target]);
  } catch (error) {
    rmSync(target, { force: true });
    throw error;
  }
}
