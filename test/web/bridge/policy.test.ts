import { describe, expect, test } from "bun:test";
import { allowBridgePath } from "../../../src/web/bridge/policy.ts";
import { createTestApp } from "../../helpers/app.ts";

const slug = "acme-notes";

describe("allowBridgePath", () => {
  test.each([
    ["/api/health", "/api/health"],
    ["/api/transcribe", "/api/transcribe"],
    ["/api/transcribe?x=1", "/api/transcribe?x=1"],
    ["/api/%74ranscribe", "/api/transcribe"],
    ["/api/plugins/acme-notes", "/api/plugins/acme-notes"],
    ["/api/plugins/acme-notes/", "/api/plugins/acme-notes/"],
    ["/api/plugins/acme-notes/notes", "/api/plugins/acme-notes/notes"],
    ["/api/plugins/acme-notes/notes/42/tags", "/api/plugins/acme-notes/notes/42/tags"],
    ["/api/plugins/acme-notes/notes?q=a%20b&x=..%2f#top", "/api/plugins/acme-notes/notes?q=a%20b&x=..%2f"],
    ["/api/plugins/acme-notes/search?q=two words/../x", "/api/plugins/acme-notes/search?q=two words/../x"],
    ["/api/plugins/acme-notes/notes#frag?x", "/api/plugins/acme-notes/notes"],
    ["/api/plugins/acme-notes/words/stra%C3%9Fe", "/api/plugins/acme-notes/words/stra%C3%9Fe"],
    ["/api/plugins/acme-notes/words/straße", "/api/plugins/acme-notes/words/stra%C3%9Fe"],
    ["/api/plugins/acme-notes/files/a.b..c", "/api/plugins/acme-notes/files/a.b..c"],
    // Escapes of unreserved characters are decoded, as the router decodes them, and sent so.
    ["/api/plugins/acme-notes/files/%2e%2e.txt", "/api/plugins/acme-notes/files/...txt"],
    ["/api/plugins/acme%2Dnotes/notes", "/api/plugins/acme-notes/notes"],
    ["/%61pi/plugins/acme-notes/x", "/api/plugins/acme-notes/x"],
    ["/api/plugins/acme-notes/%7Euser/%5Fx", "/api/plugins/acme-notes/~user/_x"],
    ["/api/plugins/acme-notes/a%20b%3F", "/api/plugins/acme-notes/a%20b%3F"],
    ["/api/plugins/acme-notes/ui/index.html", "/api/plugins/acme-notes/ui/index.html"],
    ["/api/plugins/acme-notes/enable/more", "/api/plugins/acme-notes/enable/more"],
    ["/api/plugins/acme-notes/items/a:b@c;d=e,f+g!h$i&j'k(l)m*n~o", null],
  ])("allows %s", (path, expected) => {
    const decision = allowBridgePath(slug, path);
    expect(decision).toEqual({ ok: true, path: expected ?? path });
    // What is sent is what was checked: the URL parser leaves the path as it is.
    const sent = new URL(decision.ok ? decision.path : "", "http://svc.test");
    expect(sent.pathname).toBe((expected ?? path).split(/[?#]/)[0] ?? "");
  });

  test.each([
    // Outside the namespace: core routes, another plugin, a slug that merely starts with ours.
    ["/api/history", "only /api/plugins/acme-notes/"],
    ["/api/settings", "only /api/plugins/acme-notes/"],
    ["/api/plugins", "only /api/plugins/acme-notes/"],
    ["/api/plugins/", "only /api/plugins/acme-notes/"],
    ["/api/plugins/install", "only /api/plugins/acme-notes/"],
    ["/api/plugins/uninstall", "only /api/plugins/acme-notes/"],
    ["/api/plugins/other-plugin/notes", "only /api/plugins/acme-notes/"],
    ["/api/plugins/acme-notes-evil/notes", "only /api/plugins/acme-notes/"],
    ["/api/plugins/acme-notesx", "only /api/plugins/acme-notes/"],
    ["/api/plugins/ACME-NOTES/notes", "only /api/plugins/acme-notes/"],
    ["/API/health", "only /api/plugins/acme-notes/"],
    ["/api/health/", "only /api/plugins/acme-notes/"],
    ["/api/healthz", "only /api/plugins/acme-notes/"],
    ["/api/transcribe/", "only /api/plugins/acme-notes/"],
    ["/api/transcribe/x", "only /api/plugins/acme-notes/"],
    ["/api/post-process", "only /api/plugins/acme-notes/"],
    ["/api/dictate", "only /api/plugins/acme-notes/"],
    ["/v1/audio/transcriptions", "only /api/plugins/acme-notes/"],
    ["/api/plugins/other%2Dplugin/notes", "only /api/plugins/acme-notes/"],
    ["/api/%70lugins/install", "only /api/plugins/acme-notes/"],
    ["/", "only /api/plugins/acme-notes/"],
    ["/plugins/acme-notes/main", "only /api/plugins/acme-notes/"],
    // svc's management routes inside the namespace.
    ["/api/plugins/acme-notes/enable", "svc's own route"],
    ["/api/plugins/acme-notes/disable", "svc's own route"],
    ["/api/plugins/acme-notes/disable/", "svc's own route"],
    // …however their letters are escaped: the router decodes them before it matches.
    ["/api/plugins/acme-notes/%64isable", "svc's own route"],
    ["/api/plugins/acme-notes/%65nable", "svc's own route"],
    ["/api/plugins/acme-notes/%64%69%73%61%62%6C%65", "svc's own route"],
    ["/api/plugins/acme-notes/%65nable?name=x", "svc's own route"],
    ["/api/plugins/acme%2dnotes/%64isable", "svc's own route"],
    ["/%61pi/%70lugins/acme-notes/%65nable", "svc's own route"],
    // Dot segments, raw and encoded in every case.
    ["/api/plugins/acme-notes/../install", "dot segments"],
    ["/api/plugins/acme-notes/..", "dot segments"],
    ["/api/plugins/acme-notes/./notes", "dot segments"],
    ["/api/plugins/acme-notes/.", "dot segments"],
    ["/api/plugins/acme-notes/%2e%2e/install", "dot segments"],
    ["/api/plugins/acme-notes/%2E%2E/install", "dot segments"],
    ["/api/plugins/acme-notes/.%2e/install", "dot segments"],
    ["/api/plugins/acme-notes/%2E./install", "dot segments"],
    ["/api/plugins/acme-notes/%2e/notes", "dot segments"],
    ["/api/plugins/acme-notes/x/../../history", "dot segments"],
    ["/api/plugins/acme-notes/../../history?x=1", "dot segments"],
    // Encoded separators, double encoding, NUL and other controls.
    ["/api/plugins/acme-notes/..%2f..%2fhistory", "encoded slashes"],
    ["/api/plugins/acme-notes%2f..%2finstall", "encoded slashes"],
    ["/api/plugins/acme-notes/x%2F..%2F..%2Finstall", "encoded slashes"],
    ["/api/plugins/acme-notes/..%5c..%5chistory", "encoded slashes"],
    ["/api/plugins/acme-notes/..%5C..%5Chistory", "encoded slashes"],
    ["/api/plugins/acme-notes/%252e%252e/install", "encoded slashes"],
    ["/api/plugins/acme-notes/%25", "encoded slashes"],
    ["/api/plugins/acme-notes/a%00b", "encoded slashes"],
    ["/api/plugins/acme-notes/a%0ab", "encoded slashes"],
    ["/api/plugins/acme-notes/a%7Fb", "encoded slashes"],
    ["/api/plugins/acme-notes/%zz", "stray %"],
    ["/api/plugins/acme-notes/%2", "stray %"],
    ["/api/plugins/acme-notes/%C3", "not valid percent-encoded UTF-8"],
    ["/api/plugins/acme-notes/%ff", "not valid percent-encoded UTF-8"],
    // Raw characters the URL parser would rewrite.
    ["/api/plugins/acme-notes\\..\\install", "backslashes"],
    ["/api/plugins/acme-notes/..\\history", "backslashes"],
    ["/api/plugins/acme-notes/a\u0000b", "control characters"],
    ["/api/plugins/acme-notes/.\n./install", "control characters"],
    ["/api/plugins/acme-notes/.\t./install", "control characters"],
    ["/api/plugins/acme-notes/\r../install", "control characters"],
    ["/api/plugins/acme-notes/notes?q=\n", "control characters"],
    ["/api/plugins/acme-notes/a b", "must be percent-encoded"],
    ['/api/plugins/acme-notes/a"b', "must be percent-encoded"],
    ["/api/plugins/acme-notes/<x>", "must be percent-encoded"],
    ["/api/plugins/acme-notes/\ud800", "not valid Unicode"],
    [" /api/health", "must be a path"],
    // Not a path: URLs of any kind, empty, relative.
    ["//evil.example/api/plugins/acme-notes/x", "protocol-relative"],
    ["///api/plugins/acme-notes/x", "protocol-relative"],
    ["/api//plugins/acme-notes/x", "empty segments"],
    ["/api/plugins/acme-notes//x", "empty segments"],
    ["/api/plugins//acme-notes/x", "empty segments"],
    ["http://127.0.0.1:4649/api/plugins/acme-notes/x", "must be a path"],
    ["https://evil.example/api/plugins/acme-notes/x", "must be a path"],
    ["javascript:alert(1)", "must be a path"],
    ["data:text/plain,hi", "must be a path"],
    ["api/plugins/acme-notes/x", "must be a path"],
    ["notes", "must be a path"],
    ["", "must be a path"],
    ["?x=1", "must be a path"],
    ["#/api/health", "must be a path"],
  ])("refuses %j", (path, reason) => {
    const decision = allowBridgePath(slug, path);
    expect(decision.ok).toBe(false);
    if (!decision.ok) expect(decision.reason).toContain(reason);
  });

  test("refuses a path longer than 8192 characters", () => {
    const decision = allowBridgePath(slug, `/api/plugins/acme-notes/${"a".repeat(8192)}`);
    expect(decision).toEqual({ ok: false, reason: "the path is longer than 8192 characters" });
  });

  test.each(["install", "uninstall", "reload", "", "Acme", "a/b", "a--b"])(
    "allows nothing for the slug %j, which no plugin can have",
    (bad) => {
      expect(allowBridgePath(bad, `/api/plugins/${bad}/x`).ok).toBe(false);
      expect(allowBridgePath(bad, "/api/health").ok).toBe(false);
    },
  );

  test("refuses every route svc itself serves under /api/plugins/<slug>/ but the plugin's ui files", () => {
    // Read from the API reference, so a management route added later is refused or this fails.
    const { app } = createTestApp();
    const own = app.routes
      .map((route) => route.path)
      .filter((path) => path.startsWith("/api/plugins/:slug/") && path !== "/api/plugins/:slug/*")
      .filter((path) => !path.startsWith("/api/plugins/:slug/ui/"));
    expect(own.length).toBeGreaterThan(0);
    for (const path of new Set(own)) {
      expect({ path, ok: allowBridgePath(slug, path.replace(":slug", slug)).ok }).toEqual({
        path,
        ok: false,
      });
    }
  });

  test("of every route svc serves, only health and transcription are reachable outside the namespace", () => {
    // Read from the app's routes, so a route added later stays refused unless the list names it.
    const { app } = createTestApp();
    const reachable = new Set<string>();
    for (const route of app.routes) {
      if (route.path.startsWith("/api/plugins/:slug") || route.path.includes("*")) continue;
      const path = route.path.replace(/:[A-Za-z]+/g, "x");
      if (allowBridgePath(slug, path).ok) reachable.add(path);
    }
    expect([...reachable].sort()).toEqual(["/api/health", "/api/transcribe"]);
  });
});
