import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { withBridgeScript } from "../../src/plugins/ui-static.ts";
import { fixturesDir, startPluginApp } from "../helpers/plugins.ts";

const bridgeScriptUrl = "/assets/bridge.0123456789ab.js";
const tag = `<script src="${bridgeScriptUrl}"></script>`;
const fixtureFile = (...path: string[]) => readFileSync(join(fixturesDir, ...path));

describe("GET /api/plugins/<slug>/ui/… with the bridge script", () => {
  test("an HTML document gets the bridge right after <head>, before its own scripts", async () => {
    const app = await startPluginApp({ fixtures: ["fx-routes"], entries: ["@fx/routes"], bridgeScriptUrl });
    const res = await app.request("/api/plugins/fx-routes/ui/index.html");
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toBe(
      fixtureFile("fx-routes/dist/ui/index.html").toString().replace("<head>", `<head>${tag}`),
    );
    expect(body.indexOf(tag)).toBeLessThan(body.indexOf('<script src="assets/app.js">'));
    expect(Number(res.headers.get("content-length"))).toBe(Buffer.byteLength(body));
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toStartWith("sandbox allow-scripts;");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    // The folder's index is the same document.
    expect(await (await app.request("/api/plugins/fx-routes/ui/")).text()).toBe(body);
  });

  test("a Vite-built page gets it ahead of its module script", async () => {
    const app = await startPluginApp({
      fixtures: ["fx-vite-page"],
      entries: ["@fx/vite-page"],
      bridgeScriptUrl,
    });
    const body = await (await app.request("/api/plugins/fx-vite-page/ui/index.html")).text();
    expect(body).toContain(`<head>${tag}\n    <meta charset="UTF-8" />`);
    expect(body.indexOf(tag)).toBeLessThan(body.indexOf('<script type="module"'));
  });

  test("HEAD answers the length of the document with the bridge", async () => {
    const app = await startPluginApp({ fixtures: ["fx-routes"], entries: ["@fx/routes"], bridgeScriptUrl });
    const res = await app.request("/api/plugins/fx-routes/ui/index.html", { method: "HEAD" });
    const size = fixtureFile("fx-routes/dist/ui/index.html").byteLength + Buffer.byteLength(tag);
    expect(Number(res.headers.get("content-length"))).toBe(size);
  });

  test("other files are served byte for byte", async () => {
    const app = await startPluginApp({ fixtures: ["fx-routes"], entries: ["@fx/routes"], bridgeScriptUrl });
    const res = await app.request("/api/plugins/fx-routes/ui/assets/app.js");
    const file = fixtureFile("fx-routes/dist/ui/assets/app.js");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(new Uint8Array(file));
    expect(Number(res.headers.get("content-length"))).toBe(file.byteLength);
  });

  test("by default the script is the console's bridge.js, served to the sandbox's opaque origin", async () => {
    const app = await startPluginApp({ fixtures: ["fx-routes"], entries: ["@fx/routes"] });
    const page = await (await app.request("/api/plugins/fx-routes/ui/index.html")).text();
    const url =
      /^<!doctype html>\n<html><head><script src="(\/assets\/bridge\.[0-9a-f]{12}\.js)"><\/script>/.exec(
        page,
      )?.[1];
    expect(url).toBeDefined();
    const script = await app.request(url ?? "", { headers: { origin: "null" } });
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    // Without it Chromium refuses the script to the page (ERR_BLOCKED_BY_RESPONSE.NotSameOrigin).
    expect(script.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    expect(await script.text()).toContain('"svc"');
    // The console's own files keep the same-origin policy.
    const console = await (await app.request("/")).text();
    for (const [, asset] of console.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)) {
      const res = await app.request(asset ?? "");
      expect(res.headers.get("cross-origin-resource-policy")).toBe("same-origin");
    }
  });

  test("a plugin route answering HTML is not a UI document and gets nothing", async () => {
    const app = await startPluginApp({ fixtures: ["fx-routes"], entries: ["@fx/routes"], bridgeScriptUrl });
    expect(await (await app.request("/api/plugins/fx-routes/page?name=x")).text()).toBe("<p>x</p>");
  });
});

describe("withBridgeScript", () => {
  const add = (html: string, url = "/b.js") =>
    new TextDecoder("utf-8", { ignoreBOM: true }).decode(
      withBridgeScript(new TextEncoder().encode(html), url),
    );

  test.each([
    ["<!doctype html><html><head><title>t</title>", "<!doctype html><html><head>•<title>t</title>"],
    ['<!DOCTYPE html><HTML><HEAD lang="en"><script>', '<!DOCTYPE html><HTML><HEAD lang="en">•<script>'],
    ["<head\n  data-x=1><script></script>", "<head\n  data-x=1>•<script></script>"],
    ["<!doctype html><body><header>h</header>", "<!doctype html>•<body><header>h</header>"],
    ['<html lang="en"><body><script>', '<html lang="en">•<body><script>'],
    ["<!doctype html><script>first()</script><head>", "<!doctype html>•<script>first()</script><head>"],
    [
      "<!doctype html><html><script>first()</script><head>",
      "<!doctype html><html>•<script>first()</script><head>",
    ],
    ["<script>first()</script><html><head>", "•<script>first()</script><html><head>"],
    ["<SCRIPT>first()</SCRIPT><head>", "•<SCRIPT>first()</SCRIPT><head>"],
    ["<script\nsrc=x></script><head>", "•<script\nsrc=x></script><head>"],
    ["<p>no structure</p>", "•<p>no structure</p>"],
    ["", "•"],
    ["\ufeff<p>hi</p>", "\ufeff•<p>hi</p>"],
    ["<!-- ü → 日本 --><head><title>ß</title>", "<!-- ü → 日本 --><head>•<title>ß</title>"],
    ["<scripts-are-not-this><head>", "<scripts-are-not-this><head>•"],
  ])("%j", (html, expected) => {
    expect(add(html)).toBe(expected.replace("•", '<script src="/b.js"></script>'));
  });

  test("leaves bytes in another encoding as they are", () => {
    const latin1 = Uint8Array.from([
      ...Buffer.from("<head><title>caf", "latin1"),
      0xe9,
      ...Buffer.from("</title>"),
    ]);
    const out = withBridgeScript(latin1, "/b.js");
    expect(Buffer.from(out).toString("latin1")).toBe(
      '<head><script src="/b.js"></script><title>café</title>',
    );
  });

  test("escapes the URL as an attribute value", () => {
    expect(add("<head>", '/b.js?a=1&b="<x>')).toBe(
      '<head><script src="/b.js?a=1&amp;b=&quot;&lt;x>"></script>',
    );
  });
});
