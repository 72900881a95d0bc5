import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { workerEntries } from "../../../src/dictation/engines/registry.ts";
import { TESTDATA } from "../../helpers/sphinx-testdata.ts";
import { syntheticModel } from "../../helpers/synthetic-model.ts";

const repo = resolve(import.meta.dir, "../../..");
const dir = mkdtempSync(join(tmpdir(), "svc-compiled-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("engines in a bun build --compile executable", () => {
  test("whisper loads its embedded addon and sphinx its worker, with no node_modules in reach", async () => {
    const exe = join(dir, "engines");
    // The same flags scripts/build.ts needs: the worker as an extra entrypoint, paths rooted at the repo.
    const build = Bun.spawnSync(
      [
        process.execPath,
        "build",
        "test/dictation/engines/fixtures/compiled-entry.ts",
        ...workerEntries,
      ].concat(["--root", ".", "--compile", "--no-compile-autoload-bunfig", `--outfile=${exe}`]),
      { cwd: repo, stderr: "pipe", stdout: "pipe" },
    );
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
    for (const addon of report.addons) expect(addon).not.toContain("node_modules");
    expect(report.sphinx).toBe("go forward ten meters");
    // Started without NODE_ENV, and loading whisper left none behind.
    expect(report.nodeEnv).toBeNull();
  }, 120_000);
});
