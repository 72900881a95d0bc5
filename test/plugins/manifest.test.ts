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
    const other = { ...base, acme: { icon: "smile", contributes: { pages: [] } } };
    expect(() => parseManifest(other)).toThrow('has one under "acme": rename that field to "svc"');
  });

  test("Freestyle's manifest key is read as published", () => {
    const page = { id: "emoji-settings", title: "Emoji", entry: "dist/ui/index.html" };
    const freestyle = { ...base, freestyle: { icon: "Smile", contributes: { pages: [page] } } };
    expect(parseManifest(freestyle)).toMatchObject({ icon: "Smile", pages: [page] });
  });

  test("svc's key wins over Freestyle's, which is then not even checked", () => {
    const both = { ...base, svc: { icon: "sparkles" }, freestyle: { icon: 42 } };
    expect(parseManifest(both)).toMatchObject({ icon: "sparkles", pages: [] });
  });

  test("a malformed Freestyle manifest says where", () => {
    const bad = { ...base, freestyle: { contributes: { pages: [{ id: "x" }] } } };
    expect(() => parseManifest(bad)).toThrow("freestyle.contributes.pages");
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
