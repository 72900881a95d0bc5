import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const work = mkdtempSync(join(tmpdir(), "svc-full-models-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// `unshare -rm` (util-linux) gives a private mount namespace where a tiny tmpfs is a real full
// disk; Linux with user namespaces, as svc's CI and development machines have.

describe("a model download onto a full disk", () => {
  test("is published as models.failed storage_full naming the models folder", () => {
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
    const { event, lastFailure } = JSON.parse(child.stdout.toString()) as {
      event: { code: string } | null;
      lastFailure: { code: string; message: string } | null;
    };
    expect(event).toMatchObject({ code: "storage_full" });
    expect(lastFailure?.code).toBe("storage_full");
    expect(lastFailure?.message).toContain(`The disk holding ${models} is full`);
  }, 30_000);
});
