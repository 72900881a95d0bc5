// Web console benchmark: the first screen's bytes on the wire (gzip) and the time from navigation
// to an interactive Dictate screen in headless Chromium, against the compiled binary. Side by side:
// the same browser navigating to svc's smallest answer (/api/health), the floor any page pays.
// Targets (issue 17): ≤ 80 KB gzipped, ≤ 300 ms.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { launchChromium } from "../../test/helpers/browser.ts";
import { fmt, spread, startServer, table } from "./util.ts";

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
    const cold: number[] = [];
    const warm: number[] = [];
    const floor: number[] = [];
    for (let round = 0; round < rounds; round++) {
      // A fresh context has an empty cache: a first visit. The second load in it is a return visit.
      const context = await browser.newContext();
      const page = await context.newPage();
      for (const into of [cold, warm]) {
        await page.goto(`${server.url}/`);
        // The console marks the moment its first screen is drawn and its handlers attached.
        await page.waitForFunction(() => performance.getEntriesByName("svc-ready").length > 0);
        into.push(
          await page.evaluate(() => performance.getEntriesByName("svc-ready")[0]?.startTime ?? Number.NaN),
        );
      }
      await page.goto(`${server.url}/api/health`);
      floor.push(
        await page.evaluate(() => {
          const nav = performance.getEntriesByType("navigation")[0] as
            | PerformanceNavigationTiming
            | undefined;
          return nav ? nav.loadEventEnd : Number.NaN;
        }),
      );
      await context.close();
    }
    console.log(`\nnavigation → interactive Dictate screen, ms over ${rounds} rounds: median (p10–p90)`);
    const m = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
    table([
      ["load", "ms", "× target (300 ms)", "× /api/health floor"],
      ["first visit (empty cache)", spread(cold), fmt(m(cold) / 300, 2), fmt(m(cold) / m(floor), 2)],
      ["return visit (cached assets)", spread(warm), fmt(m(warm) / 300, 2), fmt(m(warm) / m(floor), 2)],
      ["GET /api/health (floor)", spread(floor), "", "1.00"],
    ]);
  } finally {
    await browser.close();
    server.proc.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
