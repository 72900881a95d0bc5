import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/database.ts";
import { runMigrations } from "../../src/db/migrate.ts";
import { migrations } from "../../src/db/migrations/index.ts";

const work = mkdtempSync(join(tmpdir(), "svc-modes-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;

describe("the database's files", () => {
  test("are created readable by svc's user only: the folder 0700, the database and its WAL 0600", () => {
    const path = join(work, "data", "svc.db");
    const db = openDatabase(path, { migrations });
    runMigrations(db, migrations);
    db.run("INSERT INTO settings (key, value, updated_at) VALUES ('language', '\"de\"', '2025-01-01')");
    expect(mode(join(work, "data"))).toBe(0o700);
    expect(mode(path)).toBe(0o600);
    expect(mode(`${path}-wal`)).toBe(0o600);
    db.close();
  });

  test("left readable by others (an older svc, a copy) are made svc's user's alone; the folder is left", () => {
    const folder = join(work, "shared");
    mkdirSync(folder, { mode: 0o755 });
    chmodSync(folder, 0o755);
    const path = join(folder, "svc.db");
    const first = openDatabase(path, { migrations });
    runMigrations(first, migrations);
    first.close();
    chmodSync(path, 0o644);
    writeFileSync(`${path}-wal`, "");
    chmodSync(`${path}-wal`, 0o664);
    const db = openDatabase(path, { migrations });
    expect(mode(path)).toBe(0o600);
    expect(mode(`${path}-wal`)).toBe(0o600);
    expect(mode(folder)).toBe(0o755);
    db.close();
  });

  test("put straight into a shared sticky folder (/tmp as root) leave that folder's mode alone", () => {
    const shared = join(work, "tmp");
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const db = openDatabase(join(shared, "svc.db"), { migrations });
    expect(statSync(shared).mode & 0o7777).toBe(0o1777);
    expect(mode(join(shared, "svc.db"))).toBe(0o600);
    db.close();
  });
});
