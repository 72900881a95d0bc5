import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { Server } from "bun";
import type { Browser } from "playwright-core";
import { launchChromium } from "../helpers/browser.ts";
import { type PluginApp, startPluginApp } from "../helpers/plugins.ts";

// A plugin page is served sandboxed (an opaque origin), so the module scripts and `crossorigin`
// stylesheets a Vite build emits are CORS requests: without Access-Control-Allow-Origin on the
// plugin's static files they are blocked and the page stays blank.

let app: PluginApp;
let svc: Server<undefined>;
let browser: Browser;

beforeAll(async () => {
  app = await startPluginApp({ fixtures: ["fx-vite-page"], entries: ["@fx/vite-page"] });
  svc = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request, server) => app.app.fetch(request, server),
  });
  browser = await launchChromium();
}, 30_000);

afterAll(async () => {
  await browser?.close();
  svc?.stop(true);
  rmSync(app.pluginsDir, { recursive: true, force: true });
});

describe("a plugin page built the way Vite builds one", () => {
  test("loads its module scripts and crossorigin stylesheet inside the sandbox", async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    // Chromium also asks for /favicon.ico, which svc does not serve; only the page's files count.
    page.on("requestfailed", (request) => {
      if (new URL(request.url()).pathname !== "/favicon.ico")
        problems.push(`${request.url()}: ${request.failure()?.errorText}`);
    });
    await page.goto(`http://127.0.0.1:${svc.port}/api/plugins/fx-vite-page/ui/index.html`);
    const app = page.locator("#app");
    const rendered = await app
      .filter({ hasText: "rendered by a module script" })
      .waitFor({ timeout: 5_000 })
      .then(() => true)
      .catch(() => false);
    expect({ rendered, problems }).toEqual({ rendered: true, problems: [] });
    expect(await app.evaluate((element) => getComputedStyle(element).color)).toBe("rgb(0, 128, 0)");
    // The page really is sandboxed: its origin is opaque.
    expect(await page.evaluate(() => window.origin)).toBe("null");
    await page.close();
  }, 15_000);
});
