import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { errorResponse } from "../../src/http/errors.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import type { ErrorBody } from "../helpers/errors.ts";

const folders: string[] = [];
const apps: TestApp[] = [];
afterEach(() => {
  for (const t of apps.splice(0)) t.db.close();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function fileApp(): { t: TestApp; folder: string } {
  const folder = mkdtempSync(join(tmpdir(), "svc-full-"));
  folders.push(folder);
  const t = createTestApp({ dbPath: join(folder, "svc.db") });
  apps.push(t);
  return { t, folder };
}

const pageCount = (t: TestApp) =>
  t.db.query<{ page_count: number }, []>("PRAGMA page_count").get()?.page_count ?? 0;

/** SQLite's own page limit: past it every write fails with SQLITE_FULL, as on a full disk. */
const fillDisk = (t: TestApp) => t.db.run(`PRAGMA max_page_count = ${pageCount(t)}`);
const freeDisk = (t: TestApp) => t.db.run("PRAGMA max_page_count = 1073741823");

const entry = (i: number) => ({ key: `key ${i}`, value: `${i} `.repeat(600).trim() });

describe("a write when the disk is full", () => {
  test("answers 507 storage_full naming the database folder, logs it, and keeps the database whole", async () => {
    const { t, folder } = fileApp();
    expect((await t.json("/api/dictionary", "POST", entry(0))).status).toBe(201);
    fillDisk(t);
    let res: Response | undefined;
    for (let i = 1; i <= 50; i++) {
      res = await t.json("/api/dictionary", "POST", entry(i));
      if (res.status !== 201) break;
    }
    expect(res?.status).toBe(507);
    const body = (await res?.json()) as ErrorBody;
    expect(body.error.code).toBe("storage_full");
    expect(body.error.message).toContain(`The disk holding ${folder} is full`);
    expect(body.error.message).toContain("SVC_DB_PATH");
    expect(body.error.details).toEqual({ folder });
    expect(t.logs.some((line) => line.level === "error" && line.msg === "storage full")).toBe(true);

    const saved = t.db.query<{ n: number }, []>("SELECT count(*) AS n FROM dictionary").get()?.n ?? 0;
    expect(saved).toBeGreaterThanOrEqual(1);
    expect(t.db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    expect((await t.request("/api/dictionary/1")).status).toBe(200);
    expect((await t.json("/api/dictionary", "POST", entry(99))).status).toBe(507);

    freeDisk(t);
    expect((await t.json("/api/dictionary", "POST", entry(99))).status).toBe(201);
    const total = t.db.query<{ n: number }, []>("SELECT count(*) AS n FROM dictionary").get()?.n;
    expect(total).toBe(saved + 1);
    expect(t.db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
  });
});

describe("errorResponse", () => {
  test("answers a file write's ENOSPC with 507 storage_full naming the file's folder", async () => {
    const error = Object.assign(new Error("ENOSPC: no space left on device, write"), {
      code: "ENOSPC",
      path: "/srv/svc/plugins/.staging/install-1/package/index.js",
    });
    const res = errorResponse(error, undefined, "/var/lib/svc/svc.db");
    expect(res.status).toBe(507);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("storage_full");
    expect(body.error.message).toContain("The disk holding /srv/svc/plugins/.staging/install-1/package");
  });

  test("leaves other SQLite errors as 500 internal", async () => {
    const error = Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR" });
    const res = errorResponse(error, undefined, "/var/lib/svc/svc.db");
    expect(res.status).toBe(500);
    expect(((await res.json()) as ErrorBody).error.code).toBe("internal");
  });
});
