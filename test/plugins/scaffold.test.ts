import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scaffoldPlugin } from "../../src/plugins/scaffold.ts";

const sdk = join(import.meta.dir, "../../plugins/sdk");

describe("svc plugins new", () => {
  test("writes a project whose vendored svc-sdk is the SDK svc ships", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "svc-new-")), "shout");
    const files = scaffoldPlugin("@acme/shout", dir);
    expect(files).toContain("src/index.ts");
    for (const name of ["index.js", "index.d.ts", "package.json"])
      expect(readFileSync(join(dir, "vendor/svc-sdk", name), "utf8")).toBe(
        readFileSync(join(sdk, name), "utf8"),
      );
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(pkg).toMatchObject({
      name: "@acme/shout",
      main: "dist/index.js",
      dependencies: { "svc-sdk": "file:./vendor/svc-sdk" },
      svc: { contributes: { pages: [{ id: "acme-shout", entry: "dist/ui/index.html" }] } },
    });
  });

  test("refuses a folder that is not empty, and a name npm would refuse", () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-new-"));
    writeFileSync(join(dir, "keep.txt"), "mine");
    expect(() => scaffoldPlugin("@acme/shout", dir)).toThrow("is not empty");
    expect(readFileSync(join(dir, "keep.txt"), "utf8")).toBe("mine");
    expect(() => scaffoldPlugin("Not A Name", join(dir, "x"))).toThrow();
  });
});
