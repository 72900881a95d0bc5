import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { file, gzipTar, pluginFiles } from "../helpers/registry-server.ts";

const work = mkdtempSync(join(tmpdir(), "svc-full-extract-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// `unshare -rm` (util-linux) gives a private mount namespace where a tiny tmpfs is a real full
// disk; Linux with user namespaces, as svc's CI and development machines have.

describe("extracting a plugin tarball onto a full disk", () => {
  test("fails as 507 storage_full naming the folder, not as an unsafe archive", async () => {
    const tgz = join(work, "big.tgz");
    const big = "x".repeat(1024 * 1024);
    await Bun.write(tgz, await gzipTar([...pluginFiles("big", "1.0.0", "!"), file("package/big.txt", big)]));
    const disk = join(work, "disk");
    mkdirSync(disk);
    const script = join(import.meta.dir, "full-disk-extract.ts");
    const child = Bun.spawnSync([
      "unshare",
      "-rm",
      "sh",
      "-c",
      'mount -t tmpfs -o size=256k tmpfs "$1" && exec "$2" "$3" "$4" "$1/package"',
      "sh",
      disk,
      process.execPath,
      script,
      tgz,
    ]);
    expect(child.stderr.toString()).toBe("");
    const answer = JSON.parse(child.stdout.toString()) as {
      status: number;
      error: { code: string; message: string };
    };
    expect(answer.status).toBe(507);
    expect(answer.error.code).toBe("storage_full");
    expect(answer.error.message).toContain(`The disk holding ${join(disk, "package")} is full`);
  });
});
