import { describe, expect, test } from "bun:test";
import { parseManifest } from "../../src/plugins/manifest.ts";

const base = { name: "@acme/emoji", version: "1.0.0", type: "module", main: "dist/index.js" };

describe("parseManifest", () => {
  test("a package.json without the svc field says so, and what to add", () => {
    expect(() => parseManifest(base)).toThrow(
      'invalid package.json: the "svc" field (the plugin manifest) is missing: add "svc": {}',
    );
  });

  test("a manifest carried under another host's name is named, to be renamed", () => {
    const other = { ...base, freestyle: { icon: "smile", contributes: { pages: [] } } };
    expect(() => parseManifest(other)).toThrow('has one under "freestyle": rename that field to "svc"');
  });

  test("never answers with valibot's raw key message", () => {
    expect(() => parseManifest(base)).not.toThrow("Invalid key");
  });

  test("a package.json with the svc field parses", () => {
    expect(parseManifest({ ...base, svc: { icon: "smile" } })).toMatchObject({
      name: "@acme/emoji",
      icon: "smile",
    });
  });
});
