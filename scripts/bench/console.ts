// Web console benchmark: the first screen's bytes on the wire (gzip) and the time from navigation
// to an interactive Dictate screen in headless Chromium, against the compiled binary: in a new
// window (its renderer starts with the navigation) beside the same for svc's smallest answer
// (/api/health), the floor any page pays; and in an open window with an empty cache and a full one.
// Targets (issue 17): ≤ 80 KB gzipped, ≤ 300 ms.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Page } from "playwright-core";
import { launchChromium } from "../../test/helpers/browser.ts";
import { fmt, median, spread, startServer, table } from "./util.ts";

const root = resolve(import.meta.dir, "../..");
const rounds = Number(process.env.BENCH_ROUNDS ?? 15);

async function build(): Promise<void> {
  const proc = Bun.spawn([process.execPath, "scripts/build.ts"], { cwd: root, stdout: "ignore" });
  if ((await proc.exited) !== 0) throw new Error("build failed");
}

/** The document and the files it loads before the first screen can draw, as sent with gzip. */
async function firstScreenBytes(url: string): Promise<string[][]> {
  const html = await (await fetch(`${url}/`)).text();
  const files = [...html.matchAll(/<(?:script|link)[^>]*(?:src|href)="(\/assets\/[^"]+)"/g)].map(
    (m) => m[1] ?? "",
  );
  const rows: string[][] = [["file", "bytes", "gzip bytes"]];
  let plain = new TextEncoder().encode(html).length;
  let gzip = Bun.gzipSync(html).length;
  rows.push(["document", String(plain), String(gzip)]);
  for (const file of files) {
    const sent = await fetch(`${url}${file}`, { headers: { "accept-encoding": "gzip" }, decompress: false });
    const wire = (await sent.arrayBuffer()).byteLength;
    const identity = await fetch(`${url}${file}`, { headers: { "accept-encoding": "identity" } });
    const body = (await identity.arrayBuffer()).byteLength;
    rows.push([file.replace(/\.[0-9a-f]{12}\./, "."), String(body), String(wire)]);
    plain += body;
    gzip += wire;
  }
  rows.push([
    "total",
    String(plain),
    `${gzip} (${fmt(gzip / 1024)} KB; ${fmt(gzip / 1024 / 80, 2)}× the 80 KB budget)`,
  ]);
  return rows;
}

export async function run(): Promise<void> {
  await build();
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-console-"));
  const server = await startServer([join(root, "dist/svc")], { SVC_DB_PATH: join(dir, "svc.db") });
  const browser = await launchChromium();
  try {
    table(await firstScreenBytes(server.url));
    const fresh: number[] = [];
    const floor: number[] = [];
    const cold: number[] = [];
    const warm: number[] = [];
    const ready = async (page: Page) => {
      await page.waitForFunction(() => performance.getEntriesByName("svc-ready").length > 0);
      return page.evaluate(() => performance.getEntriesByName("svc-ready")[0]?.startTime ?? Number.NaN);
    };
    for (let round = 0; round < rounds; round++) {
      // A new browser context: its renderer starts with the navigation, as in a new window.
      const first = await browser.newContext();
      const page = await first.newPage();
      await page.goto(`${server.url}/`);
      fresh.push(await ready(page));
      await first.close();
      // The floor: the same, for svc's smallest answer.
      const second = await browser.newContext();
      const health = await second.newPage();
      await health.goto(`${server.url}/api/health`);
      floor.push(
        await health.evaluate(() => {
          const nav = performance.getEntriesByType("navigation")[0] as
            | PerformanceNavigationTiming
            | undefined;
          return nav ? nav.loadEventEnd : Number.NaN;
        }),
      );
      // With the renderer running: an empty cache (a first visit), then the files cached.
      const cdp = await second.newCDPSession(health);
      await cdp.send("Network.clearBrowserCache");
      await health.goto(`${server.url}/`);
      cold.push(await ready(health));
      await health.goto(`${server.url}/`);
      warm.push(await ready(health));
      await second.close();
    }
    console.log(`\nnavigation → interactive Dictate screen, ms over ${rounds} rounds: median (p10–p90)`);
    table([
      ["load", "ms", "× target (300 ms)", "× floor"],
      [
        "new window: svc's console",
        spread(fresh),
        fmt(median(fresh) / 300, 2),
        fmt(median(fresh) / median(floor), 2),
      ],
      ["new window: GET /api/health (floor)", spread(floor), "", "1.00"],
      ["open window, empty cache (first visit)", spread(cold), fmt(median(cold) / 300, 2), ""],
      ["open window, files cached (return visit)", spread(warm), fmt(median(warm) / 300, 2), ""],
    ]);
  } finally {
    await browser.close();
    server.proc.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
