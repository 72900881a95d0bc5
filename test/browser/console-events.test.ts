import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import type { Browser } from "playwright-core";
import { socketHandler } from "../../src/http/sockets.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { launchChromium } from "../helpers/browser.ts";
import { openConsole } from "../helpers/console.ts";

// The console's one events socket: it says when live updates are lost and reconnects by itself.

let t: TestApp;
let server: Server<unknown>;
let browser: Browser;
let port: number;

const serve = (at: number) =>
  Bun.serve({
    hostname: "127.0.0.1",
    port: at,
    fetch: (request, bun) => t.app.fetch(request, bun),
    // As main.ts serves it: GET /api/events binds its handlers over the bus the test app publishes on.
    websocket: socketHandler,
  });

beforeAll(async () => {
  t = createTestApp();
  server = serve(0);
  port = server.port ?? 0;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  server?.stop(true);
});

describe("live updates", () => {
  test("a lost connection is announced, and the console reconnects when svc is back", async () => {
    const { page } = await openConsole(browser, `http://127.0.0.1:${port}/dictionary`);
    await page.locator("#screen-title").waitFor();
    // Connected: no banner, even while the socket was still opening.
    await Bun.sleep(500);
    expect(await page.locator(".offline").count()).toBe(0);
    server.stop(true);
    await page.locator(".offline").waitFor({ timeout: 10_000 });
    server = serve(port);
    await page.locator(".offline").waitFor({ state: "detached", timeout: 20_000 });
    // Back to live: an entry added over the API appears without a reload.
    expect((await t.json("/api/dictionary", "POST", { key: "teh", value: "the" })).status).toBe(201);
    await page.getByRole("cell", { name: "teh", exact: true }).first().waitFor({ timeout: 10_000 });
    await page.context().close();
  }, 60_000);
});
