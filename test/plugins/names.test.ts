import { describe, expect, test } from "bun:test";
import { packageNameProblem } from "../../src/plugins/package-name.ts";
import { pluginSlug } from "../../src/plugins/slug.ts";

describe("pluginSlug", () => {
  test.each([
    ["@svc/profanity-filter", "svc-profanity-filter"],
    ["@svc/profanity-filter-dev", "svc-profanity-filter-dev"],
    ["@acme/My_Plugin", "acme-my-plugin"],
    ["@scope/--weird..name--", "scope-weird-name"],
    ["plain-plugin", "plain-plugin"],
    ["a.b_c", "a-b-c"],
  ])("%s → %s", (name, slug) => {
    expect(pluginSlug(name)).toBe(slug);
  });
});

describe("packageNameProblem", () => {
  test.each(["svc-x", "@svc/x", "@a1/b.c_d-e", "x".repeat(214)])("accepts %s", (name) => {
    expect(packageNameProblem(name)).toBeUndefined();
  });

  test.each([
    "../x",
    "@x/..",
    "@../foo",
    "@./foo",
    "@x/.bin",
    ".hidden",
    "_private",
    "-dash",
    "__proto__",
    "node_modules",
    "@x/node_modules",
    "favicon.ico",
    "Upper",
    "a/b/c",
    "a/b",
    "%2e%2e",
    "a b",
    "a\\b",
    "",
    "x".repeat(215),
    "install",
    "@scope-only",
    "reload",
    42,
    null,
  ])("refuses %p", (name) => {
    expect(packageNameProblem(name)).toBeString();
  });
});
