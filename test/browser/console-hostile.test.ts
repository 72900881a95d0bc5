import { describe, expect, test } from "bun:test";
import { browserSuite } from "../helpers/browser-suite.ts";
import { openConsole } from "../helpers/console.ts";
import { expectConfined, hostilePageRequests, hostileResults } from "../helpers/hostile-page.ts";
import { pluginsDirWith } from "../helpers/plugins.ts";
import { until } from "../helpers/until.ts";

// The hostile fixture page inside the real console of the compiled binary, where bridge.test.ts
// frames it in a stand-in: the console's own wiring of the bridge (its toasts, copy and navigation)
// must hold as well, and svc's request log shows what reached it.

const hostile = "/api/plugins/fx-hostile-page";

const suite = browserSuite("console-hostile", {
  makeDir: () => pluginsDirWith("fx-hostile-page"),
  // At debug, so the page's passing /api/health calls are logged too (at info they are not).
  env: (dir) => ({ SVC_PLUGINS_DIR: dir, SVC_LOG_LEVEL: "debug" }),
  ready: async ({ svc }) => {
    const enabled = await fetch(`${svc.url}${hostile}/enable`, { method: "POST" });
    if (!enabled.ok) throw new Error(`enable: ${enabled.status} ${await enabled.text()}`);
  },
});

const api = async (path: string): Promise<unknown> => (await fetch(`${suite.svc.url}${path}`)).json();

/** What the server logged as served since line `from`, as "METHOD /path". */
const served = (from: number) =>
  suite.svc.lines
    .slice(from)
    .filter((line) => line.msg === "request")
    .map((line) => `${line.method} ${line.path}`);

/**
 * Waits up to 2 s for `count` of the lines `served(from)` to pass `which`: log lines come through
 * a pipe, after the answers they record.
 */
const logged = (from: number, count: number, which: (line: string) => boolean = () => true) =>
  until(
    () => served(from).filter(which).length,
    (seen) => seen >= count,
    { timeoutMs: 2000, everyMs: 20, what: `${count} request lines` },
  );

describe("a hostile plugin page in the console (compiled binary)", () => {
  test("every way out is refused; the console neither toasts nor moves for it", async () => {
    const state = async () => ({
      settings: await api("/api/settings"),
      plugins: await api("/api/plugins"),
      history: await api("/api/history"),
    });
    const mark = suite.svc.lines.length;
    const before = await state();
    // The three just served must be logged before the page's lines are counted.
    await logged(mark, 3);
    const from = suite.svc.lines.length;
    const { page, problems } = await openConsole(
      suite.browser,
      `${suite.svc.url}/plugins/fx-hostile-page/main`,
    );
    const frame = await (
      await page.locator("iframe.plugin-frame").elementHandle({ timeout: 10_000 })
    )?.contentFrame();
    if (!frame) throw new Error("the console did not frame the plugin page");
    expectConfined(await hostileResults(frame));

    // The nested frame's spoofed toast and navigation came to nothing in the console.
    expect(new URL(page.url()).pathname).toBe("/plugins/fx-hostile-page/main");
    expect(await page.locator(".toast").count()).toBe(0);
    expect(page.context().pages()).toHaveLength(1);

    // From the page, svc served its own routes and /api/health; under /api/ nothing else but what
    // the console itself asks for.
    const pageOwn = (line: string) => line.includes(hostile) || line.endsWith(" /api/health");
    await logged(from, hostilePageRequests.length, pageOwn);
    const log = served(from);
    expect(log.filter(pageOwn).toSorted()).toEqual(hostilePageRequests);
    const consoleOwn = log.filter((line) => line.includes(" /api/") && !pageOwn(line));
    expect(consoleOwn.toSorted()).toEqual(["GET /api/auth/session", "GET /api/events", "GET /api/plugins"]);
    expect(await state()).toEqual(before);
    // Chromium logs the page's refused attempts; any other error would be the console's own.
    const refusal = (problem: string) =>
      problem.includes("Content Security Policy")
        ? "CSP"
        : problem.includes("navigation of the top-level window is sandboxed")
          ? "top navigation"
          : problem.includes("'allow-popups' permission is not set")
            ? "popup"
            : problem.includes("status of 418")
              ? "the teapot route's own 418"
              : problem;
    expect(new Set(problems.map(refusal))).toEqual(
      new Set(["CSP", "top navigation", "popup", "the teapot route's own 418"]),
    );
    await page.context().close();
  }, 60_000);
});
