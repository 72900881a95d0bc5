import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { Server } from "bun";
import type { Browser } from "playwright-core";
import { launchChromium } from "../helpers/browser.ts";
import { type PluginApp, pluginsDirWith, startPluginApp } from "../helpers/plugins.ts";
import { startRegistry } from "../helpers/registry-server.ts";

// A page on another port of this machine (a dev server, a local web tool) attacks svc with what a
// browser sends without a CORS preflight: a form post, sendBeacon, a no-cors fetch, and a fetch
// with a JSON body (which needs the preflight svc never grants). It aims at every state-changing
// route, with a body each of them would act on. Nothing may change.

// Valid for install, uninstall, settings, dictionary, vocabulary, formats, post-process, import.
const payload = {
  npmName: "@fx/evil",
  enable: true,
  specifier: "@fx/victim",
  purge: true,
  value: "http://attacker.example/v1",
  key: "attack",
  term: "attack",
  label: "attack",
  appPattern: "attack",
  text: "attack",
  format: "svc-export",
  version: 1,
};

interface Target {
  method: string;
  path: string;
}

const attackerPage = (svc: string, targets: Target[]) => `<!doctype html>
<meta charset="utf-8">
<body>
<script>
const svc = ${JSON.stringify(svc)};
const targets = ${JSON.stringify(targets)};
const payload = ${JSON.stringify(JSON.stringify(payload))};
const settle = (promise) => promise.then(() => "sent", (error) => String(error));

function formPost(path, index) {
  return new Promise((resolve) => {
    const frame = document.createElement("iframe");
    frame.name = "f" + index;
    document.body.append(frame);
    const form = document.createElement("form");
    form.method = "POST";
    form.action = svc + path;
    form.enctype = "text/plain";
    form.target = frame.name;
    // The text/plain trick: name + "=" + value spells out the JSON payload.
    const input = document.createElement("input");
    input.name = payload.slice(0, -1) + ',"pad":"';
    input.value = '"}';
    form.append(input);
    document.body.append(form);
    frame.addEventListener("load", () => resolve("loaded"), { once: true });
    setTimeout(() => resolve("timeout"), 5000);
    form.submit();
  });
}

window.attack = async () => {
  const results = [];
  let index = 0;
  for (const { method, path } of targets) {
    const url = svc + path;
    if (method === "POST") {
      results.push(["form", path, await formPost(path, index++)]);
      results.push(["beacon", path, String(navigator.sendBeacon(url, payload))]);
      results.push(["no-cors", path, await settle(fetch(url, { method, mode: "no-cors", body: payload }))]);
    }
    results.push(["json", path, await settle(fetch(url, {
      method, headers: { "content-type": "application/json" }, body: payload,
    }))]);
  }
  return results;
};
</script>`;

let app: PluginApp;
let registry: Awaited<ReturnType<typeof startRegistry>>;
let svc: Server<undefined>;
let attacker: Server<undefined>;
let browser: Browser;
const seen: { method: string; path: string; status: number }[] = [];

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
      seen.push({ method: request.method, path: new URL(request.url).pathname, status: response.status });
      return response;
    },
  });
  attacker = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) =>
      new Response(
        new URL(request.url).pathname === "/frame"
          ? `<iframe src="http://127.0.0.1:${svc.port}/api/plugins/fx-routes/ui/index.html"></iframe>`
          : attackerPage(`http://127.0.0.1:${svc.port}`, stateChangingRoutes()),
        { headers: { "content-type": "text/html" } },
      ),
  });
  browser = await launchChromium();
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

async function snapshot() {
  const read = async (path: string) => (await app.request(path)).text();
  return {
    export: { ...JSON.parse(await read("/api/export")), exportedAt: undefined },
    settings: await read("/api/settings"),
    plugins: await read("/api/plugins"),
    history: await read("/api/history"),
    models: await read("/api/models"),
    storage: await read("/api/plugins/fx-storage/values/attack"),
  };
}

describe("a page on another local port", () => {
  test("cannot change anything through any state-changing route", async () => {
    const targets = stateChangingRoutes();
    expect(targets.length).toBeGreaterThan(20);
    const before = await snapshot();
    const page = await browser.newPage();
    await page.goto(`http://localhost:${attacker.port}/`);
    const results = (await page.evaluate("window.attack()")) as [string, string, string][];
    // Beacons are sent after the page's script moves on; wait until svc has heard them all.
    const posts = targets.filter((target) => target.method === "POST").length;
    const deadline = performance.now() + 10_000;
    while (seen.filter((request) => request.method === "POST").length < posts * 3) {
      if (performance.now() > deadline) break;
      await Bun.sleep(20);
    }
    await page.close();

    expect(results.length).toBe(posts * 4 + (targets.length - posts));
    // Every form, beacon and no-cors request reached svc and was refused; no JSON fetch got past
    // its preflight (svc never approves one).
    const attacks = seen.filter((request) => request.method !== "GET" && request.method !== "OPTIONS");
    expect(attacks.length).toBe(posts * 3);
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
