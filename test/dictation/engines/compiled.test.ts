import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { compileArgs, isPlatform, prepareNative } from "../../../scripts/compile.ts";
import { hostPlatform } from "../../../scripts/whisper-addon.mjs";
import { TESTDATA } from "../../helpers/sphinx-testdata.ts";
import { syntheticModel } from "../../helpers/synthetic-model.ts";

const repo = resolve(import.meta.dir, "../../..");
const dir = mkdtempSync(join(tmpdir(), "svc-compiled-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("engines in a bun build --compile executable", () => {
  test("whisper loads its embedded addon and sphinx its worker, with no node_modules in reach", async () => {
    const exe = join(dir, "engines");
    // The same arguments scripts/build.ts uses (embedded whisper builds, the worker entry), for a test entry.
    const platform = hostPlatform();
    if (!isPlatform(platform)) throw new Error(`svc makes no binary for ${platform}`);
    await prepareNative(platform);
    const args = compileArgs(platform, exe, "test/dictation/engines/fixtures/compiled-entry.ts");
    const build = Bun.spawnSync([process.execPath, ...args], { cwd: repo, stderr: "pipe", stdout: "pipe" });
    expect(build.stderr.toString()).toBe("");
    expect(build.exitCode).toBe(0);

    // Run from an empty directory: nothing on the module path, so only embedded files can load.
    const run = Bun.spawnSync([exe, syntheticModel("micro"), `${TESTDATA}/goforward.raw`], {
      cwd: dir,
      env: { PATH: "/usr/bin:/bin" },
      stderr: "pipe",
      stdout: "pipe",
    });
    expect(run.stderr.toString()).toBe("");
    const report = JSON.parse(run.stdout.toString()) as {
      whisper: string;
      addons: string[];
      sphinx: string;
      nodeEnv: string | null;
    };
    expect(report.whisper).toBe("string");
    expect(report.addons.length).toBeGreaterThan(0);
    for (const addon of report.addons) {
      expect(addon).not.toContain("node_modules");
      expect(addon).not.toContain("build/whisper");
    }
    expect(report.sphinx).toBe("go forward ten meters");
    // Started without NODE_ENV, and loading whisper left none behind.
    expect(report.nodeEnv).toBeNull();
  }, 120_000);
});
