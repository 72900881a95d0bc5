import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import type { Server } from "bun";
import type { Browser } from "playwright-core";
import { packPackage } from "../../src/plugins/pack.ts";
import { launchChromium } from "../helpers/browser.ts";
import { fixturesDir, type PluginApp, startPluginApp } from "../helpers/plugins.ts";

// Freestyle's audio-transcription page, as published, in Chromium: installed from its tarball,
// framed by a stand-in for the console (bridge-host.ts), it finds the bridge as window.freestyle,
// decodes the goforward recording with Web Audio and sends it to /api/transcribe through the
// bridge, which lets that one route through; the sphinx engine hears "go forward ten meters".

const root = resolve(import.meta.dir, "../..");
const slug = "fs-audio-transcription";

let app: PluginApp;
let svc: Server<undefined>;
let browser: Browser;
let base: string;
const requests: string[] = [];

async function tarballOf(folder: string): Promise<Uint8Array<ArrayBuffer>> {
  const dir = join(fixturesDir, folder);
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry): [string, Uint8Array] => {
      const path = join(entry.parentPath, entry.name);
      return [relative(dir, path).split("\\").join("/"), new Uint8Array(readFileSync(path))];
    });
  return packPackage(files);
}

beforeAll(async () => {
  app = await startPluginApp({});
  app.services.settings.set("stt_engine", "sphinx");
  const installed = await app.request("/api/plugins/install?enable=true", {
    method: "POST",
    headers: { "content-type": "application/gzip" },
    body: await tarballOf(slug),
  });
  if (installed.status !== 201) throw new Error(`install failed: ${await installed.text()}`);
  const built = await Bun.build({
    entrypoints: [join(root, "test/browser/bridge-host.ts")],
    target: "browser",
    minify: true,
  });
  const host = await built.outputs[0]?.text();
  if (!built.success || !host) throw new Error("bundling the console stand-in failed");
  svc = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request, server) => {
      const url = new URL(request.url);
      requests.push(`${request.method} ${url.pathname}`);
      if (url.pathname === "/__test/host.js")
        return new Response(host, { headers: { "content-type": "text/javascript" } });
      if (url.pathname === "/__test/host.html")
        return new Response(
          '<!doctype html><html><body><script src="/__test/host.js"></script></body></html>',
          {
            headers: { "content-type": "text/html" },
          },
        );
      return app.app.fetch(request, server);
    },
  });
  base = `http://127.0.0.1:${svc.port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  svc?.stop(true);
  rmSync(app.pluginsDir, { recursive: true, force: true });
});

describe("Freestyle's audio-transcription page", () => {
  test("transcribes goforward through window.freestyle and the bridge", async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    const query = new URLSearchParams({ slug, src: `/api/plugins/${slug}/ui/index.html` });
    await page.goto(`${base}/__test/host.html?${query}`);
    const frame = await (await page.locator("iframe").elementHandle())?.contentFrame();
    if (!frame) throw new Error("the plugin page was not framed");
    await frame.waitForLoadState("load");
    // window.freestyle is the very object window.svc is.
    expect(await frame.evaluate(() => typeof window.freestyle?.api === "function")).toBe(true);
    expect(await frame.evaluate(() => window.freestyle === window.svc)).toBe(true);

    await frame.locator("#file-input").setInputFiles(join(root, "test/fixtures/audio/goforward-opus.webm"));
    const row = frame.locator("#results li");
    await row.and(frame.locator("[data-state]")).waitFor({ timeout: 30_000 });
    expect({ state: await row.getAttribute("data-state"), errors }).toEqual({ state: "done", errors: [] });
    expect((await row.textContent())?.toLowerCase()).toContain("go forward ten meters");
    expect(requests).toContain("POST /api/transcribe");
    // It went into history like any other upload, marked as the API's.
    const history = (await (await app.request("/api/history")).json()) as { items: { source: string }[] };
    expect(history.items.map((item) => item.source)).toEqual(["api"]);
    await page.close();
  }, 60_000);

  test("the bridge still refuses the page every other route of svc's", async () => {
    const page = await browser.newPage();
    const query = new URLSearchParams({ slug, src: `/api/plugins/${slug}/ui/index.html` });
    await page.goto(`${base}/__test/host.html?${query}`);
    const frame = await (await page.locator("iframe").elementHandle())?.contentFrame();
    if (!frame) throw new Error("the plugin page was not framed");
    await frame.waitForLoadState("load");
    const statuses = await frame.evaluate(async () => {
      const bridge = window.freestyle;
      if (!bridge) return null;
      const paths = ["/api/settings", "/api/history", "/api/post-process", "/api/plugins/install"];
      return Promise.all(
        paths.map(async (path) => (await bridge.api(path, { method: "POST", body: "{}" })).status),
      );
    });
    expect(statuses).toEqual([403, 403, 403, 403]);
    await page.close();
  }, 30_000);
});
