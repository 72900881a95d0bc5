import { Database } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { errorCode, reasonOf } from "../errors.ts";
import { ensurePrivateDir } from "../private-dir.ts";
import { DatabaseTooNewError, type Migration, readSchemaVersion, refuseNewerDatabase } from "./migrate.ts";

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
  let db: Database;
  try {
    if (path !== ":memory:") {
      // History is what people dictate: the folder, the database and its WAL (SQLite gives the
      // WAL the database's mode) are svc's user's alone.
      ensurePrivateDir(dirname(path));
      if (!existsSync(path)) closeSync(openSync(path, "a", 0o600));
      else keepPrivate(path);
    }
    db = new Database(path, { create: true, strict: true });
  } catch (error) {
    throw openProblem(path, error);
  }
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
    throw error instanceof DatabaseTooNewError ? error : openProblem(path, error);
  }
}

/**
 * A database an older svc (or a copy) left readable by others is made svc's user's alone, with its
 * WAL and shared-memory files. Only files svc's user owns: another owner's file is left as it is
 * (the operator chose it), and its folder is not touched (it may be a home folder).
 */
function keepPrivate(path: string): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      const stat = statSync(file);
      if (stat.isFile() && stat.uid === uid && (stat.mode & 0o077) !== 0) chmodSync(file, stat.mode & 0o700);
    } catch {
      // Not there (no WAL yet), or not ours to change: SQLite opens it or says why.
    }
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** What to do about a database that cannot be opened, by the error's code. */
function openHint(path: string, code: unknown): string {
  if (isFolder(path)) return `SVC_DB_PATH names a folder; name a file in it, such as ${join(path, "svc.db")}`;
  switch (code) {
    case "EACCES":
    case "EPERM":
    case "EROFS":
    case "SQLITE_CANTOPEN":
    case "SQLITE_READONLY":
    case "SQLITE_PERM":
      return permissionHint(path);
    case "ENOTDIR":
    case "EEXIST":
      return "a part of the path is a file, not a folder";
    case "SQLITE_NOTADB":
      return "the file is not an SQLite database: point SVC_DB_PATH at a new file or restore a backup";
    case "SQLITE_CORRUPT":
      return "the file is damaged: restore a backup made with svc backup";
    case "SQLITE_BUSY":
    case "SQLITE_LOCKED":
      return "another process holds it locked";
    default:
      return "check SVC_DB_PATH";
  }
}

/**
 * Who svc runs as and who owns the folder, with the command that fixes it: a bind mount into the
 * container (uid 10001) or a folder made by root is the usual cause.
 */
function permissionHint(path: string): string {
  const folder = dirname(path);
  const uid = process.getuid?.();
  if (uid === undefined) return `check that the user svc runs as may write to ${folder}`;
  let owner = "";
  try {
    const stat = statSync(folder);
    owner = `, owned by uid ${stat.uid} with mode ${(stat.mode & 0o777).toString(8).padStart(4, "0")}`;
  } catch {}
  const ids = `${uid}:${process.getgid?.() ?? uid}`;
  return `svc runs as uid ${uid} and may not write ${folder}${owner}; give the folder to that user: sudo chown -R ${ids} ${folder} (for a container's bind mount, run it on the host, on the folder you mounted)`;
}

/** One line for the operator: which file, what went wrong, what to do. */
function openProblem(path: string, error: unknown): Error {
  const code = errorCode(error);
  const reason = reasonOf(error);
  return new Error(`cannot open the database ${path}: ${reason} (${openHint(path, code)})`, { cause: error });
}

/** The version of the SQLite library svc runs on, without opening a database file. */
export function sqliteLibraryVersion(): string {
  const db = new Database(":memory:");
  try {
    return sqliteVersion(db);
  } finally {
    db.close();
  }
}

/**
 * Backs up the database file at `source` (live or not) to `target` with `backupDatabase`, waiting
 * up to 10 s for a writer to finish.
 */
export function backupDatabaseFile(source: string, target: string): void {
  const db = new Database(source, { create: false });
  try {
    db.run("PRAGMA busy_timeout = 10000");
    backupDatabase(db, target);
  } finally {
    db.close();
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
