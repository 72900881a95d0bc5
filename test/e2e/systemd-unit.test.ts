import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

// The unit svc ships (scripts/svc.service), judged by systemd's own tools as an operator would.
const unitPath = resolve(import.meta.dir, "../../scripts/svc.service");
const root = mkdtempSync(join(tmpdir(), "svc-unit-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function analyze(args: string[]) {
  const result = Bun.spawnSync(["systemd-analyze", ...args], { stdout: "pipe", stderr: "pipe" });
  return { code: result.exitCode, out: `${result.stdout}${result.stderr}` };
}

describe("scripts/svc.service", () => {
  test("scores 1.5 or less in systemd-analyze security", () => {
    const { code, out } = analyze(["security", "--offline=yes", "--no-pager", unitPath]);
    expect(code).toBe(0);
    const score = Number(/Overall exposure level for svc\.service: ([\d.]+)/.exec(out)?.[1]);
    expect(score).toBeLessThanOrEqual(1.5);
  });

  test("passes systemd-analyze verify with nothing to say", () => {
    // A root holding the system's units, the unit as installed, and an executable where it points.
    mkdirSync(join(root, "etc/systemd/system"), { recursive: true });
    mkdirSync(join(root, "usr/local/bin"), { recursive: true });
    mkdirSync(join(root, "usr/lib/systemd"), { recursive: true });
    cpSync("/usr/lib/systemd/system", join(root, "usr/lib/systemd/system"), { recursive: true });
    writeFileSync(join(root, "etc/systemd/system/svc.service"), readFileSync(unitPath));
    writeFileSync(join(root, "usr/local/bin/svc"), "#!/bin/sh\n");
    chmodSync(join(root, "usr/local/bin/svc"), 0o755);
    expect(analyze(["verify", `--root=${root}`, "svc.service"])).toEqual({ code: 0, out: "" });
  });

  test("reads an optional environment file and keeps the data private", () => {
    const unit = readFileSync(unitPath, "utf8");
    expect(unit).toContain("EnvironmentFile=-/etc/svc/env");
    expect(unit).toContain("UMask=0077");
    expect(unit).toMatch(/^StateDirectoryMode=07[05]0$/m);
  });
});
