import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Server } from "bun";
import type { Browser, Frame, Page } from "playwright-core";
import { launchChromium } from "../helpers/browser.ts";
import { expectConfined, hostilePageRequests, hostileResults } from "../helpers/hostile-page.ts";
import { type PluginApp, pluginsDirWith, startPluginApp } from "../helpers/plugins.ts";

// The bridge end to end in Chromium: svc serves the plugin page with its bridge script, a stand-in
// for the console (bridge-host.ts, which calls attachBridge) frames it sandboxed, and the page's
// window.svc reaches svc only through that console.

const root = resolve(import.meta.dir, "../..");
const hostile = "/api/plugins/fx-hostile-page";
const profanity = "/api/plugins/svc-profanity-filter";

let app: PluginApp;
let svc: Server<undefined>;
let browser: Browser;
let base: string;
/** Every request that reached the server, as "METHOD /path?query". */
const requests: string[] = [];

async function bundle(entry: string): Promise<string> {
  const result = await Bun.build({ entrypoints: [join(root, entry)], target: "browser", minify: true });
  const output = result.outputs[0];
  if (!result.success || !output) throw new Error(`bundling ${entry} failed: ${result.logs.join("\n")}`);
  return output.text();
}

beforeAll(async () => {
  const pluginsDir = pluginsDirWith("fx-hostile-page", "fx-routes");
  cpSync(join(root, "plugins/profanity-filter"), join(pluginsDir, "svc-profanity-filter"), {
    recursive: true,
  });
  app = await startPluginApp({
    pluginsDir,
    entries: ["@svc/profanity-filter", "@fx/hostile-page", "@fx/routes"],
  });
  const files: Record<string, { body: string; type: string }> = {
    "/__test/host.js": { body: await bundle("test/browser/bridge-host.ts"), type: "text/javascript" },
    "/__test/host.html": {
      body: '<!doctype html><html><head><title>console</title></head><body><script src="/__test/host.js"></script></body></html>',
      type: "text/html",
    },
  };
  svc = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request, server) => {
      const url = new URL(request.url);
      requests.push(`${request.method} ${url.pathname}${url.search}`);
      const file = files[url.pathname];
      if (file) return new Response(file.body, { headers: { "content-type": file.type } });
      return app.app.fetch(request, server);
    },
  });
  base = `http://127.0.0.1:${svc.port}`;
  browser = await launchChromium();
}, 30_000);

afterAll(async () => {
  await browser?.close();
  svc?.stop(true);
  rmSync(app.pluginsDir, { recursive: true, force: true });
});

interface Framed {
  page: Page;
  frame: Frame;
  errors: string[];
  actions(): Promise<unknown[][]>;
}

/** The console stand-in framing `pagePath` for `slug`. */
async function framed(slug: string, pagePath: string): Promise<Framed> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  const query = new URLSearchParams({ slug, src: pagePath });
  await page.goto(`${base}/__test/host.html?${query}`);
  const frame = await (await page.locator("iframe").elementHandle())?.contentFrame();
  if (!frame) throw new Error("the plugin page was not framed");
  await frame.waitForLoadState("load");
  return { page, frame, errors, actions: () => page.evaluate(() => window.bridgeActions) };
}

const json = async (path: string) => (await app.request(path)).json();

describe("the profanity filter's page through window.svc", () => {
  test("lists, adds, edits, deletes and resets words, and asks for toasts", async () => {
    const initial = (await json(`${profanity}/replacements`)) as { replacements: { word: string }[] };
    const { page, frame, errors, actions } = await framed(
      "svc-profanity-filter",
      `${profanity}/ui/index.html`,
    );
    const rows = frame.locator("#rows tr");
    await expect(rows.first().waitFor()).resolves.toBeUndefined();
    expect(await rows.count()).toBe(initial.replacements.length);
    const firstWord = initial.replacements[0]?.word ?? "";

    await frame.locator("#word").fill("frak");
    await frame.locator("#alternatives").fill("frell, drat");
    await frame.getByRole("button", { name: "Add" }).click();
    const frak = rows.filter({ has: frame.getByRole("cell", { name: "frak", exact: true }) });
    await frak.waitFor();
    const word = async (text: string) =>
      (
        (await json(`${profanity}/replacements`)) as {
          replacements: { word: string; alternatives: string[] }[];
        }
      ).replacements.find((item) => item.word === text);
    expect(await word("frak")).toMatchObject({ alternatives: ["frell", "drat"] });

    await frak.getByRole("button", { name: "Edit" }).click();
    await frame.getByLabel("Replacements for frak").fill("gosh");
    await frak.getByRole("button", { name: "Save" }).click();
    // The editing cell is named by its input's value, so "gosh" is there before the save lands:
    // the row is drawn again, with its Edit button, only once the server has answered.
    await frak.getByRole("button", { name: "Edit" }).waitFor();
    expect(await frak.getByRole("cell", { name: "gosh", exact: true }).count()).toBe(1);
    expect(await word("frak")).toMatchObject({ alternatives: ["gosh"] });

    const first = rows.filter({ has: frame.getByRole("cell", { name: firstWord, exact: true }) });
    await first.getByRole("button", { name: "Delete" }).click();
    await first.waitFor({ state: "detached" });
    expect(await word(firstWord)).toBeUndefined();

    await frame.locator("#reset").click();
    await frame.locator("#reset").click();
    await frak.waitFor({ state: "detached" });
    expect(await json(`${profanity}/replacements`)).toEqual(initial);
    expect(await rows.count()).toBe(initial.replacements.length);

    expect(await actions()).toEqual([
      ["toast", 'Added "frak"', "success"],
      ["toast", 'Updated "frak"', "success"],
      ["toast", `Deleted "${firstWord}"`, "success"],
      ["toast", "Default list restored", "success"],
    ]);
    expect(await frame.locator("#error").textContent()).toBe("");
    expect(errors).toEqual([]);
    await page.close();
  }, 30_000);

  test("opened on its own, the page has no window.svc and says so", async () => {
    const page = await browser.newPage();
    await page.goto(`${base}${profanity}/ui/index.html`);
    expect(await page.evaluate(() => "svc" in window)).toBe(false);
    await expect(page.locator("#no-bridge").isVisible()).resolves.toBe(true);
    await page.close();
  }, 20_000);
});

describe("a hostile plugin page", () => {
  test("every way out is refused or unreadable; its own route and /api/health work", async () => {
    const before = {
      settings: await json("/api/settings"),
      plugins: await json("/api/plugins"),
      history: await json("/api/history"),
      words: await json(`${profanity}/replacements`),
    };
    const seen = requests.length;
    const { page, frame, actions } = await framed("fx-hostile-page", `${hostile}/ui/index.html`);
    expectConfined(await hostileResults(frame));
    expect(page.url()).toStartWith(`${base}/__test/host.html`);
    expect(page.context().pages()).toHaveLength(1);

    // Nothing else reached svc: not the refused paths, not the redirect's target, not the spoofs.
    const reached = requests
      .slice(seen)
      .filter(
        (line) => !line.startsWith("GET /__test/") && !/^GET \/assets\/bridge\.[0-9a-f]{12}\.js$/.test(line),
      );
    expect(reached.toSorted()).toEqual(hostilePageRequests);
    expect(await actions()).toEqual([]);
    expect({
      settings: await json("/api/settings"),
      plugins: await json("/api/plugins"),
      history: await json("/api/history"),
      words: await json(`${profanity}/replacements`),
    }).toEqual(before);
    await page.close();
  }, 30_000);

  test("opened on its own, it has no window.svc", async () => {
    const page = await browser.newPage();
    await page.goto(`${base}${hostile}/ui/index.html`);
    const results = await hostileResults(page.mainFrame());
    expect(await page.evaluate(() => "svc" in window)).toBe(false);
    expect(results["window.svc at start"] as unknown).toBe("undefined");
    expect(results["own route"]?.threw).toContain("TypeError");
    expect(results["direct GET /api/history"]?.threw).toContain("TypeError");
    await page.close();
  }, 20_000);
});

describe("window.svc", () => {
  test("sends every body type fetch accepts byte for byte and answers with the bytes sent back", async () => {
    const { page, frame } = await framed("fx-hostile-page", `${hostile}/ui/index.html`);
    const echoed = await frame.evaluate(async (path) => {
      const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
      const form = new FormData();
      form.append("field", "välue");
      form.append("file", new File([bytes], "bytes.bin", { type: "application/x-bytes" }));
      const bodies: Record<string, BodyInit> = {
        string: "héllo ✓",
        json: JSON.stringify({ a: [1, "ü"] }),
        blob: new Blob([bytes], { type: "application/x-test" }),
        arrayBuffer: bytes.buffer.slice(0),
        typedArray: new Uint16Array([1, 65535, 256]),
        dataView: new DataView(bytes.buffer, 10, 4),
        urlSearchParams: new URLSearchParams({ q: "a b&c", ü: "é" }),
        formData: form,
      };
      const out: Record<string, { method: string; type: string; bytes: number[] }> = {};
      for (const [name, body] of Object.entries(bodies)) {
        const res = await window.svc?.api(path, { method: name === "json" ? "PUT" : "POST", body });
        out[name] = {
          method: res?.headers.get("x-echo-method") ?? "",
          type: res?.headers.get("x-echo-content-type") ?? "",
          bytes: [...new Uint8Array((await res?.arrayBuffer()) ?? new ArrayBuffer(0))],
        };
      }
      return out;
    }, `${hostile}/echo`);
    const all = Array.from({ length: 256 }, (_, i) => i);
    const utf8 = (text: string) => [...new TextEncoder().encode(text)];
    expect(echoed.string).toEqual({
      method: "POST",
      type: "text/plain;charset=UTF-8",
      bytes: utf8("héllo ✓"),
    });
    expect(echoed.json).toEqual({
      method: "PUT",
      type: "text/plain;charset=UTF-8",
      bytes: utf8('{"a":[1,"ü"]}'),
    });
    expect(echoed.blob).toEqual({ method: "POST", type: "application/x-test", bytes: all });
    expect(echoed.arrayBuffer).toEqual({ method: "POST", type: "", bytes: all });
    expect(echoed.typedArray).toEqual({ method: "POST", type: "", bytes: [1, 0, 255, 255, 0, 1] });
    expect(echoed.dataView).toEqual({ method: "POST", type: "", bytes: [10, 11, 12, 13] });
    expect(echoed.urlSearchParams).toEqual({
      method: "POST",
      type: "application/x-www-form-urlencoded;charset=UTF-8",
      bytes: utf8("q=a+b%26c&%C3%BC=%C3%A9"),
    });
    const multipart = echoed.formData;
    expect(multipart?.type).toStartWith("multipart/form-data; boundary=");
    const parsed = await new Response(Uint8Array.from(multipart?.bytes ?? []), {
      headers: { "content-type": multipart?.type ?? "" },
    }).formData();
    expect(parsed.get("field")).toBe("välue");
    expect([...new Uint8Array(await (parsed.get("file") as File).arrayBuffer())]).toEqual(all);
    const raw = Buffer.from(multipart?.bytes ?? []).toString("latin1");
    const filePart = `filename="bytes.bin"\r\nContent-Type: application/x-bytes\r\n\r\n${Buffer.from(all).toString("latin1")}\r\n`;
    expect(raw).toContain(filePart);
    await page.close();
  }, 20_000);

  test("drops headers a page may not choose and keeps its own", async () => {
    const { page, frame } = await framed("fx-hostile-page", `${hostile}/ui/index.html`);
    const sent = await frame.evaluate(async (path) => {
      const res = await window.svc?.api(path, {
        method: "POST",
        headers: {
          "x-plugin": "yes",
          "x-forwarded-for": "1.2.3.4",
          authorization: "Basic eDp5",
          accept: "*/*",
        },
        body: "x",
      });
      return JSON.parse(res?.headers.get("x-echo-headers") ?? "[]") as string[];
    }, `${hostile}/echo`);
    expect(sent).toContain("x-plugin");
    expect(sent).toContain("accept");
    expect(sent).not.toContain("x-forwarded-for");
    expect(sent).not.toContain("authorization");
    await page.close();
  }, 20_000);

  test("serverUrl is svc's origin; invoke runs host actions and rejects what it may not", async () => {
    const { page, frame, actions } = await framed("fx-hostile-page", `${hostile}/ui/index.html`);
    const outcome = await frame.evaluate(async () => {
      const svc = window.svc;
      const settle = (promise: Promise<unknown> | undefined) =>
        Promise.resolve(promise).then(
          (value) => ({ value }),
          (error: Error) => ({ error: error.message }),
        );
      return {
        serverUrl: svc?.serverUrl,
        origin: window.origin,
        copy: await settle(svc?.invoke("copy", { text: "copied" })),
        navigate: await settle(svc?.invoke("navigate", { to: "/history" })),
        api: await settle(svc?.invoke("navigate", { to: "/api/settings" })),
        away: await settle(svc?.invoke("navigate", { to: "https://evil.example/" })),
        unknown: await settle(svc?.invoke("open" as "copy", { text: "x" })),
        variant: await settle(svc?.invoke("toast", { message: "x", variant: "loud" as "info" })),
        aborted: await svc?.api("/api/plugins/fx-hostile-page/slow", { signal: AbortSignal.timeout(5) }).then(
          () => "resolved",
          (error: Error) => error.name,
        ),
      };
    });
    expect(outcome).toEqual({
      serverUrl: base,
      origin: "null",
      copy: { value: null },
      navigate: { value: null },
      api: { error: 'navigate: "/api/settings" is an API route, not a console screen' },
      away: { error: 'navigate: "https://evil.example/" is not an in-app path: use one such as /plugins' },
      unknown: { error: 'unknown channel "open": use copy, toast or navigate' },
      variant: { error: "toast variant must be one of success, info, warning, error" },
      aborted: "TimeoutError",
    });
    expect(await actions()).toEqual([
      ["copy", "copied"],
      ["navigate", "/history"],
    ]);
    await page.close();
  }, 20_000);
});
