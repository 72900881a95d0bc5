import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const work = mkdtempSync(join(tmpdir(), "svc-full-models-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `unshare -rm` gives a private mount namespace where a tiny tmpfs is a real full disk. */
const namespaces =
  Bun.which("unshare") !== null &&
  Bun.spawnSync(["unshare", "-rm", "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", work]).exitCode === 0;

describe("a model download onto a full disk", () => {
  test.skipIf(!namespaces)(
    "is published as models.failed storage_full naming the models folder",
    () => {
      const models = join(work, "models");
      mkdirSync(models);
      const child = Bun.spawnSync([
        "unshare",
        "-rm",
        "sh",
        "-c",
        'mount -t tmpfs -o size=256k tmpfs "$1" && exec "$2" "$3" "$1"',
        "sh",
        models,
        process.execPath,
        join(import.meta.dir, "full-disk-download.ts"),
      ]);
      expect(child.stderr.toString()).toBe("");
      const failed = JSON.parse(child.stdout.toString()) as { code: string; message: string } | null;
      expect(failed).toMatchObject({ code: "storage_full" });
      expect(failed?.message).toContain(`The disk holding ${models} is full`);
    },
    30_000,
  );
});
