import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../helpers/browser.ts";
import { type DictateServer, serveDictation, toPcm16 } from "../helpers/dictate-server.ts";
import { goForward } from "../helpers/sphinx-testdata.ts";

// A WebSocket has no CORS preflight: a page on another port of this machine could open
// /api/dictate, stream audio, use the engine and write history. It may open /api/events (ids only,
// docs/SPEC.md §5) and nothing else; svc's own page runs the same script to the final text.

let svc: DictateServer;
let attacker: Server<undefined>;
let browser: Browser;

beforeAll(async () => {
  svc = serveDictation();
  svc.app.services.settings.set("stt_engine", "sphinx");
  attacker = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () =>
      new Response("<!doctype html><title>elsewhere</title>", { headers: { "content-type": "text/html" } }),
  });
  browser = await launchChromium();
}, 30_000);

afterAll(async () => {
  await browser?.close();
  attacker?.stop(true);
  await svc?.stop();
});

/** In the page: opens a socket to `url`; for /api/dictate dictates `audio` (base64 pcm16) to the end. */
function sockets(page: Page, base: string, audio: string) {
  return page.evaluate(
    async ({ base, audio }) => {
      const open = (path: string, onOpen: (ws: WebSocket) => void) =>
        new Promise<string[]>((resolve) => {
          const seen: string[] = [];
          const ws = new WebSocket(base + path);
          ws.onopen = () => {
            seen.push("open");
            onOpen(ws);
          };
          ws.onmessage = (event) => {
            seen.push(JSON.parse(String(event.data)).type);
            if (path === "/api/events") ws.close();
          };
          ws.onclose = () => resolve(seen);
          setTimeout(() => resolve([...seen, "timeout"]), 10_000);
        });
      const bytes = Uint8Array.from(atob(audio), (char) => char.charCodeAt(0));
      const dictate = await open("/api/dictate", (ws) => {
        ws.send(JSON.stringify({ type: "start", format: "pcm16", sampleRate: 16_000 }));
        ws.send(bytes);
        ws.send(JSON.stringify({ type: "stop" }));
      });
      const events = await open("/api/events", () => {});
      return { dictate, events };
    },
    { base, audio },
  );
}

const history = async () =>
  ((await (await svc.app.request("/api/history")).json()) as { total: number }).total;

describe("WebSockets from a page on another local port", () => {
  test("/api/dictate is refused and nothing is recorded; /api/events opens; svc's own page dictates", async () => {
    const audio = Buffer.from(
      toPcm16(Float32Array.from([...goForward(), ...new Float32Array(16_000)])),
    ).toString("base64");
    const base = `ws://127.0.0.1:${svc.port}`;
    const page = await browser.newPage();
    await page.goto(`http://localhost:${attacker.port}/`);
    const foreign = await sockets(page, base, audio);
    expect(foreign.dictate).toEqual([]);
    expect(foreign.events).toEqual(["open", "hello"]);
    expect(await history()).toBe(0);

    await page.goto(`http://127.0.0.1:${svc.port}/`);
    const own = await sockets(page, base, audio);
    expect(own.dictate.slice(0, 2)).toEqual(["open", "ready"]);
    expect(own.dictate.at(-1)).toBe("final");
    expect(await history()).toBe(1);
    await page.close();
  }, 30_000);
});
