import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { Server } from "bun";
import type { Browser } from "playwright-core";
import { launchChromium } from "../helpers/browser.ts";
import { type PluginApp, pluginsDirWith, startPluginApp } from "../helpers/plugins.ts";
import { startRegistry } from "../helpers/registry-server.ts";

// A page on another port of this machine (a dev server, a local web tool) attacks svc with every
// request Chromium sends without a CORS preflight: a form posted into a frame, sendBeacon, a
// no-cors fetch, CSP `report-uri` reports (application/csp-report), Reporting-API reports
// (application/reports+json) and `<a ping>` (text/ping); and with a fetch of a JSON body, which
// needs the preflight svc never grants. It aims at every state-changing route, with a body each
// of them would act on. Nothing may change.

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

/** A document whose one blocked image makes Chromium POST a CSP report to every target. */
const cspPage = (svc: string, targets: Target[]) => ({
  body: '<!doctype html><img src="/blocked.png">',
  headers: {
    "content-security-policy": `img-src 'none'; report-uri ${targets.map((t) => svc + t.path).join(" ")}`,
  },
});

/**
 * The same through the Reporting API: one endpoint and one policy per target. (Chromium 156 as
 * Debian builds it queues these reports, as the page's ReportingObserver sees, but has not been
 * seen delivering them, even to its own origin; the unit table covers their type.)
 */
const reportingPage = (svc: string, targets: Target[]) => ({
  body: `<!doctype html><script>
new ReportingObserver((reports) => { document.title = "reports:" + reports.length; }, { buffered: true }).observe();
</script><img src="/blocked.png">`,
  headers: {
    "reporting-endpoints": targets.map((t, i) => `e${i}="${svc}${t.path}"`).join(", "),
    "content-security-policy": targets.map((_, i) => `img-src 'none'; report-to e${i}`).join(", "),
  },
});

/** A link whose one click sends a ping to every target. */
const pingPage = (svc: string, targets: Target[]) => ({
  body: `<!doctype html><a id="link" href="/after-ping" ping="${targets.map((t) => svc + t.path).join(" ")}">next</a>`,
  headers: {},
});

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
  const target = `http://127.0.0.1:${svc.port}`;
  const pages: Record<string, () => { body: string; headers: Record<string, string> }> = {
    "/frame": () => ({
      body: `<iframe src="${target}/api/plugins/fx-routes/ui/index.html"></iframe>`,
      headers: {},
    }),
    "/csp": () => cspPage(target, posts()),
    "/reports": () => reportingPage(target, posts()),
    "/ping": () => pingPage(target, posts()),
  };
  attacker = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const page = pages[new URL(request.url).pathname]?.() ?? {
        body: attackerPage(target, stateChangingRoutes()),
        headers: {},
      };
      return new Response(page.body, { headers: { "content-type": "text/html", ...page.headers } });
    },
  });
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

/** Waits until svc has heard `count` requests that `match`, or 10 s have passed. */
async function heard(match: (request: (typeof seen)[number]) => boolean, count: number) {
  const deadline = performance.now() + 10_000;
  while (seen.filter(match).length < count && performance.now() < deadline) await Bun.sleep(20);
  return seen.filter(match);
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
    const postCount = posts().length;
    expect(targets.length).toBeGreaterThan(20);
    const before = await snapshot();
    const page = await browser.newPage();
    const attackerUrl = `http://localhost:${attacker.port}`;
    await page.goto(`${attackerUrl}/`);
    const results = (await page.evaluate("window.attack()")) as [string, string, string][];
    expect(results.length).toBe(postCount * 4 + (targets.length - postCount));
    // Beacons are sent after the page's script moves on; wait until svc has heard them all.
    const isPost = (request: (typeof seen)[number]) => request.method === "POST";
    await heard(isPost, postCount * 3);

    await page.goto(`${attackerUrl}/csp`);
    const reports = await heard((request) => request.type === "application/csp-report", postCount);
    await page.goto(`${attackerUrl}/ping`);
    await page.click("#link");
    const pings = await heard((request) => request.type === "text/ping", postCount);
    await page.goto(`${attackerUrl}/reports`);
    await page.waitForFunction("document.title.startsWith('reports:')");
    await Bun.sleep(1500);
    await page.close();

    // Every form, beacon, no-cors request, CSP report and ping reached svc and was refused; no
    // JSON fetch got past its preflight, nor any Reporting-API report (svc never approves one).
    expect(reports.length).toBe(postCount);
    expect(pings.length).toBe(postCount);
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
