import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { backupDatabase, openDatabase } from "../../src/db/database.ts";
import {
  DatabaseTooNewError,
  type Migration,
  MigrationError,
  readSchemaVersion,
  runMigrations,
} from "../../src/db/migrate.ts";
import { migrations } from "../../src/db/migrations/index.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-migrate-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const hash = (path: string) => new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");

function openFresh(path: string, list: readonly Migration[] = migrations) {
  const db = openDatabase(path, { migrations: list });
  runMigrations(db, list);
  return db;
}

const extra = (version: number, up: Migration["up"]): Migration => ({
  version,
  name: `extra-${version}`,
  up,
});

describe("runMigrations", () => {
  test("a fresh database gets every migration, recorded in order", () => {
    const db = openFresh(join(dir, "svc.db"));
    const rows = db
      .query<{ version: number }, []>("SELECT version FROM schema_migrations ORDER BY version")
      .all();
    expect(rows.map((row) => row.version)).toEqual(migrations.map((m) => m.version));
    expect(readSchemaVersion(db)).toBe(migrations.length);
    db.close();
  });

  test("running them again is a no-op", () => {
    const db = openFresh(join(dir, "svc.db"));
    expect(runMigrations(db, migrations)).toEqual([]);
    db.close();
  });

  test("opens with WAL, synchronous=FULL, foreign keys and a busy timeout", () => {
    const db = openFresh(join(dir, "nested", "deeper", "svc.db"));
    const pragma = (name: string) => Object.values(db.query(`PRAGMA ${name}`).get() as object)[0];
    expect(pragma("journal_mode")).toBe("wal");
    expect(pragma("synchronous")).toBe(2);
    expect(pragma("foreign_keys")).toBe(1);
    expect(pragma("busy_timeout")).toBe(5000);
    db.close();
  });

  test("a database written by a newer svc is refused and left untouched", () => {
    const path = join(dir, "svc.db");
    const newer = [...migrations, extra(migrations.length + 1, (db) => db.run("CREATE TABLE future (x)"))];
    openFresh(path, newer).close();
    const before = hash(path);
    expect(() => openDatabase(path, { migrations })).toThrow(DatabaseTooNewError);
    expect(() => openDatabase(path, { migrations })).toThrow(/newer svc/);
    expect(hash(path)).toBe(before);
  });

  test("a throwing migration rolls back and leaves the file unchanged", () => {
    const path = join(dir, "svc.db");
    openFresh(path).close();
    const before = hash(path);
    const failing = [
      ...migrations,
      extra(migrations.length + 1, (db) => {
        db.run("CREATE TABLE half_done (x)");
        db.run("INSERT INTO half_done VALUES (1)");
        throw new Error("boom");
      }),
    ];
    const db = openDatabase(path, { migrations: failing });
    expect(() => runMigrations(db, failing)).toThrow(MigrationError);
    expect(readSchemaVersion(db)).toBe(migrations.length);
    expect(db.query("SELECT name FROM sqlite_master WHERE name = 'half_done'").get()).toBeNull();
    db.close();
    expect(hash(path)).toBe(before);
  });

  test("migrations out of order are a programming error", () => {
    const db = new Database(":memory:");
    expect(() => runMigrations(db, [extra(2, () => {})])).toThrow(/numbered 1..n/);
  });
});

describe("backupDatabase", () => {
  test("writes a consistent copy while the source stays open", () => {
    const db = openFresh(join(dir, "svc.db"));
    db.run("INSERT INTO settings (key, value, updated_at) VALUES ('k', '1', 'now')");
    backupDatabase(db, join(dir, "copy", "backup.db"));
    const copy = new Database(join(dir, "copy", "backup.db"), { readonly: true });
    expect(copy.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    expect(copy.query("SELECT value FROM settings WHERE key = 'k'").get()).toEqual({ value: "1" });
    copy.close();
    // The copy holds the user's history: readable by its owner only, whatever the umask.
    expect(statSync(join(dir, "copy", "backup.db")).mode & 0o777).toBe(0o600);
    db.close();
  });

  test("refuses an existing file and leaves no file behind when the copy fails", () => {
    const db = openFresh(join(dir, "svc.db"));
    writeFileSync(join(dir, "taken.db"), "keep me");
    expect(() => backupDatabase(db, join(dir, "taken.db"))).toThrow(/EEXIST/);
    expect(readFileSync(join(dir, "taken.db"), "utf8")).toBe("keep me");
    db.close();
    expect(() => backupDatabase(db, join(dir, "closed.db"))).toThrow();
    expect(existsSync(join(dir, "closed.db"))).toBe(false);
  });
});
