import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runKeysCommand } from "../../src/cli/keys.ts";

const dir = mkdtempSync(join(tmpdir(), "svc-keys-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const dbPath = join(dir, "svc.db");

function keys(...args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = runKeysCommand(args, dbPath, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

describe("svc keys", () => {
  test("create prints the key alone on stdout, once; list shows names and roles, never a key; revoke ends it", () => {
    const made = keys("create", "--name", "phone", "--role", "dictate");
    expect(made.code).toBe(0);
    const key = made.stdout.trim();
    expect(key).toMatch(/^svck_[0-9a-f]{12}[A-Za-z0-9_-]{43}$/);
    expect(made.stderr).toContain("shown this once");
    const listed = keys("list");
    expect(listed.stdout).toMatch(/^phone\tdictate\tcreated \S+\tlast used never\n$/);
    expect(listed.stdout).not.toContain(key);
    expect(keys("create", "--name", "phone", "--role", "admin").code).toBe(1);
    expect(keys("revoke", "phone").code).toBe(0);
    expect(keys("list").stdout).toBe("no keys\n");
    expect(keys("revoke", "phone")).toMatchObject({ code: 1, stderr: 'svc keys: no key is named "phone"\n' });
  });

  test("a wrong role, a bad name or an unknown subcommand is a usage error", () => {
    expect(keys("create", "--name", "tablet", "--role", "root").code).toBe(2);
    expect(keys("create", "--name", "../etc", "--role", "admin").code).toBe(2);
    expect(keys("rotate").code).toBe(2);
  });
});
