import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { Server } from "bun";
import type { Browser } from "playwright-core";
import { attackFrom, serveAttacker, stateOf, type Target } from "../helpers/attacker-pages.ts";
import { launchChromium } from "../helpers/browser.ts";
import { type PluginApp, pluginsDirWith, startPluginApp } from "../helpers/plugins.ts";
import { startRegistry } from "../helpers/registry-server.ts";

// A page on another port of this machine (a dev server, a local web tool) attacks svc with every
// request Chromium sends without a CORS preflight: a form posted into a frame, sendBeacon, a
// no-cors fetch, CSP `report-uri` reports (application/csp-report), Reporting-API reports
// (application/reports+json) and `<a ping>` (text/ping); and with a fetch of a JSON body, which
// needs the preflight svc never grants. It aims at every state-changing route, with a body each
// of them would act on. Nothing may change.

let app: PluginApp;
let registry: Awaited<ReturnType<typeof startRegistry>>;
let svc: Server<undefined>;
let attacker: Server<undefined>;
let browser: Browser;
const seen: { method: string; path: string; type: string; status: number }[] = [];

beforeAll(async () => {
  registry = await startRegistry();
  await registry.publish("@fx/evil", "1.0.0", " [evil]");
  await registry.publish("@fx/victim", "1.0.0", " [victim]");
  app = await startPluginApp({
    pluginsDir: pluginsDirWith("fx-storage", "fx-routes"),
    entries: ["@fx/storage", "@fx/routes"],
    npmRegistry: registry.url,
  });
  // Installed but switched off: enabling it would run its code.
  expect((await app.json("/api/plugins/install", "POST", { npmName: "@fx/victim" })).status).toBe(201);
  svc = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request, server) {
      const response = await app.app.fetch(request, server);
      seen.push({
        method: request.method,
        path: new URL(request.url).pathname,
        type: request.headers.get("content-type") ?? "",
        status: response.status,
      });
      return response;
    },
  });
  attacker = serveAttacker(
    `http://127.0.0.1:${svc.port}`,
    stateChangingRoutes,
    "/api/plugins/fx-routes/ui/index.html",
  );
  // Reports leave within a second instead of a minute.
  browser = await launchChromium(["--short-reporting-delay"]);
}, 30_000);

afterAll(async () => {
  await browser?.close();
  svc?.stop(true);
  attacker?.stop(true);
  registry?.stop();
  rmSync(app.pluginsDir, { recursive: true, force: true });
});

/** Every route that changes state, with its parameters filled in with things that exist. */
function stateChangingRoutes(): Target[] {
  const targets = new Map<string, Target>();
  for (const route of app.app.routes) {
    const methods = route.method === "ALL" ? ["POST", "PUT", "DELETE"] : [route.method];
    for (const method of methods) {
      if (!["POST", "PUT", "PATCH", "DELETE"].includes(method)) continue;
      const path = route.path
        .replace(":slug/*", "fx-storage/values/attack")
        .replace(":slug", "fx-victim")
        .replace(":key", "llm_base_url")
        .replace(":id", method === "DELETE" && route.path.startsWith("/api/models") ? "base.en" : "1");
      if (path.includes("*") || path.includes(":")) continue;
      targets.set(`${method} ${path}`, { method, path });
    }
  }
  return [...targets.values()];
}

/** The POST routes: reports and pings are POSTs. */
const posts = () => stateChangingRoutes().filter((target) => target.method === "POST");

const snapshot = () =>
  stateOf(async (path) => (await app.request(path)).text(), ["/api/plugins/fx-storage/values/attack"]);

describe("a page on another local port", () => {
  test("cannot change anything through any state-changing route", async () => {
    const targets = stateChangingRoutes();
    const postCount = posts().length;
    expect(targets.length).toBeGreaterThan(20);
    const before = await snapshot();
    const posted = () => seen.filter((request) => request.method === "POST").length;
    const { results, heardPerKind } = await attackFrom(
      browser,
      `http://localhost:${attacker.port}`,
      postCount,
      async (count) => {
        const deadline = performance.now() + 10_000;
        while (posted() < count && performance.now() < deadline) await Bun.sleep(20);
        return posted();
      },
    );
    expect(results.length).toBe(postCount * 4 + (targets.length - postCount));
    // Every form, beacon, no-cors request, CSP report and ping reached svc and was refused; no
    // JSON fetch got past its preflight, nor any Reporting-API report (svc never approves one).
    expect(heardPerKind).toEqual([postCount * 3, postCount, postCount]);
    const typed = (type: string) => seen.filter((request) => request.type === type).length;
    expect([typed("application/csp-report"), typed("text/ping")]).toEqual([postCount, postCount]);
    const attacks = seen.filter((request) => request.method !== "GET" && request.method !== "OPTIONS");
    expect(attacks.length).toBe(postCount * 5);
    expect(attacks.filter((request) => request.status !== 403)).toEqual([]);
    expect(await snapshot()).toEqual(before);
  }, 60_000);

  test("cannot frame a plugin page", async () => {
    const page = await browser.newPage();
    const pluginPage = `http://127.0.0.1:${svc.port}/api/plugins/fx-routes/ui/index.html`;
    const text = "document.body ? document.body.innerText : ''";
    // Opened directly, the page renders.
    await page.goto(pluginPage);
    expect(await page.evaluate(text)).toContain("routes fixture page");
    await page.goto(`http://localhost:${attacker.port}/frame`);
    await page.waitForLoadState("load");
    const framed = page.frames().find((frame) => frame !== page.mainFrame());
    expect(framed).toBeDefined();
    expect(await framed?.evaluate(text).catch(() => "")).not.toContain("routes fixture page");
    expect(framed?.url()).not.toBe(pluginPage);
    await page.close();
  });
});
