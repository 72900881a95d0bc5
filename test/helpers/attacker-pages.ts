// Pages on another port of this machine that attack svc with every request Chromium sends
// without a CORS preflight (issue 26): forms posted into frames, sendBeacon, no-cors fetches, CSP
// report-uri reports, Reporting-API reports, <a ping>; and JSON fetches, which need the preflight
// svc never grants. Served by `serveAttacker` at /, /csp, /reports, /ping and /frame.
import type { Server } from "bun";
import type { Browser } from "playwright-core";

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

export interface Target {
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

/**
 * The attacker's server on a free port: `/` runs `window.attack()` against `targets()`, `/csp`,
 * `/reports` and `/ping` aim at its POST targets, `/frame` frames `framed` (a page of svc's).
 */
export function serveAttacker(svc: string, targets: () => Target[], framed = ""): Server<undefined> {
  const posts = () => targets().filter((target) => target.method === "POST");
  const pages: Record<string, () => { body: string; headers: Record<string, string> }> = {
    "/frame": () => ({ body: `<iframe src="${svc}${framed}"></iframe>`, headers: {} }),
    "/csp": () => cspPage(svc, posts()),
    "/reports": () => reportingPage(svc, posts()),
    "/ping": () => pingPage(svc, posts()),
  };
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const page = pages[new URL(request.url).pathname]?.() ?? {
        body: attackerPage(svc, targets()),
        headers: {},
      };
      return new Response(page.body, { headers: { "content-type": "text/html", ...page.headers } });
    },
  });
}

/**
 * Opens the attacker's pages in `browser` one after the other: `/` (forms, beacons, no-cors and
 * JSON fetches at every target), `/csp`, `/ping` (one click) and `/reports`. `heard(count)` waits
 * until svc has heard `count` POSTs in all and answers how many it has; the attack waits for
 * each kind before the next. Answers the page's own report of what it sent.
 */
export async function attackFrom(
  browser: Browser,
  attackerUrl: string,
  posts: number,
  heard: (count: number) => Promise<number>,
): Promise<{ results: [string, string, string][]; heardPerKind: number[] }> {
  const page = await browser.newPage();
  const heardPerKind: number[] = [];
  let before = 0;
  const count = async (expected: number) => {
    const now = await heard(before + expected);
    heardPerKind.push(now - before);
    before = now;
  };
  await page.goto(`${attackerUrl}/`);
  const results = (await page.evaluate("window.attack()")) as [string, string, string][];
  // Beacons are sent after the page's script moves on.
  await count(posts * 3);
  await page.goto(`${attackerUrl}/csp`);
  await count(posts);
  await page.goto(`${attackerUrl}/ping`);
  await page.click("#link");
  await count(posts);
  await page.goto(`${attackerUrl}/reports`);
  await page.waitForFunction("document.title.startsWith('reports:')");
  // Reporting-API reports, were any delivered, would come within a second (--short-reporting-delay).
  await Bun.sleep(1500);
  await page.close();
  return { results, heardPerKind };
}

/**
 * What an attack could change, read through `read` (a path to the body it answers): the whole
 * export (its time left out), settings, plugins, history, models, and `extra` paths.
 */
export async function stateOf(read: (path: string) => Promise<string>, extra: string[] = []) {
  const state: Record<string, unknown> = {
    export: { ...JSON.parse(await read("/api/export")), exportedAt: undefined },
  };
  for (const path of ["/api/settings", "/api/plugins", "/api/history", "/api/models", ...extra])
    state[path] = await read(path);
  return state;
}
