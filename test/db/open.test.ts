import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openDatabase } from "../../src/db/database.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import { runBinary } from "../helpers/binary.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-open-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("a database that cannot be opened", () => {
  test("a folder: the message names the path and suggests a file in it", () => {
    mkdirSync(join(dir, "data"));
    expect(() => openDatabase(join(dir, "data"), { migrations })).toThrow(
      `cannot open the database ${join(dir, "data")}`,
    );
    expect(() => openDatabase(join(dir, "data"), { migrations })).toThrow(
      `SVC_DB_PATH names a folder; name a file in it, such as ${join(dir, "data", "svc.db")}`,
    );
  });

  test("a file that is not SQLite: named, explained, and left as it was", () => {
    const path = join(dir, "notes.txt");
    writeFileSync(path, "these are my notes, not a database\n".repeat(200));
    expect(() => openDatabase(path, { migrations })).toThrow(/notes\.txt: .*not an SQLite database/);
    expect(readFileSync(path, "utf8")).toStartWith("these are my notes");
  });

  test("a path through a file: says a part of it is not a folder", () => {
    writeFileSync(join(dir, "file"), "x");
    expect(() => openDatabase(join(dir, "file", "svc.db"), { migrations })).toThrow(
      /a part of the path is a file, not a folder/,
    );
  });

  // A folder owned by root, as a bind mount into the container (uid 10001) usually is. Run as that
  // uid with setpriv: root itself may write anywhere.
  test.if(process.getuid?.() === 0)(
    "a folder svc may not write: names the uid, the owner and the chown",
    () => {
      const data = join(dir, "data");
      mkdirSync(data, { mode: 0o755 });
      chmodSync(dir, 0o755);
      const script = `import { openDatabase } from "./src/db/database.ts"; import { migrations } from "./src/db/migrations/index.ts";
      try { openDatabase(${JSON.stringify(join(data, "svc.db"))}, { migrations }); } catch (e) { console.log(e.message); }`;
      const run = Bun.spawnSync(
        ["setpriv", "--reuid=10001", "--regid=10001", "--clear-groups", process.execPath, "-e", script],
        { cwd: resolve(import.meta.dir, "../.."), stdout: "pipe", stderr: "pipe" },
      );
      expect(run.stderr.toString()).toBe("");
      expect(run.stdout.toString()).toContain(
        `svc runs as uid 10001 and may not write ${data}, owned by uid 0 with mode 0755; give the folder to that user: sudo chown -R 10001:10001 ${data}`,
      );
    },
  );

  test("the binary prints it as one line and exits 1", async () => {
    mkdirSync(join(dir, "data"));
    const result = await runBinary([], { SVC_DB_PATH: join(dir, "data"), HOST: "127.0.0.1", PORT: "0" });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toStartWith(`svc: cannot open the database ${join(dir, "data")}`);
    expect(result.stdout).not.toContain("svc listening");
  }, 30_000);
});
