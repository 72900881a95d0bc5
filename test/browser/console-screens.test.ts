import { describe, expect, test } from "bun:test";
import { browserSuite } from "../helpers/browser-suite.ts";
import {
  axeViolations,
  desktop,
  openConsole,
  phone,
  screenshotPath,
  unlabelledControls,
  viaMenu,
} from "../helpers/console.ts";

// Every screen of the console, and a plugin page, at a desktop and a phone size against the
// compiled binary: no uncaught error and no CSP violation, every control named, nothing wider
// than the screen, and a screenshot of each (bench-results/screenshots, a CI artifact).

const screens = [
  ["/", "Dictate"],
  ["/history", "History"],
  ["/dictionary", "Dictionary"],
  ["/vocabulary", "Vocabulary"],
  ["/formats", "Formats"],
  ["/models", "Models"],
  ["/settings", "Settings"],
  ["/plugins", "Plugins"],
  ["/plugins/svc-profanity-filter/profanity-filter", "Profanity filter"],
] as const;

const suite = browserSuite("console-screens", {
  env: () => ({ SVC_NPM_REGISTRY: "http://127.0.0.1:9" }),
  ready: async () => {
    const installed = await fetch(`${suite.svc.url}/api/plugins/install`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ npmName: "@svc/profanity-filter", enable: true }),
    });
    expect(installed.status).toBe(201);
  },
});

describe("every console screen", () => {
  for (const [size, viewport] of [
    ["desktop", desktop],
    ["phone", phone],
  ] as const) {
    test(`at ${size} size: no errors, every control named, nothing too wide`, async () => {
      const { page, problems } = await openConsole(suite.browser, `${suite.svc.url}/`, { viewport });
      for (const [path, title] of screens) {
        // Through the menu, as a person moves around (the document is loaded once).
        await viaMenu(page, title);
        await page.locator("#screen-title", { hasText: title }).waitFor();
        expect(new URL(page.url()).pathname).toBe(path);
        await page.waitForLoadState("networkidle");
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
        expect({ path, overflow }).toEqual({ path, overflow: 0 });
        expect({ path, unlabelled: await unlabelledControls(page) }).toEqual({ path, unlabelled: [] });
        await page.screenshot({ path: screenshotPath(`screen-${path.split("/")[1] || "dictate"}-${size}`) });
      }
      expect(problems).toEqual([]);
      await page.context().close();
    }, 90_000);
  }

  for (const colorScheme of ["light", "dark"] as const) {
    test(`axe finds nothing serious or critical on any screen, ${colorScheme}`, async () => {
      const { page, problems } = await openConsole(suite.browser, `${suite.svc.url}/`, { colorScheme });
      for (const [path, title] of screens) {
        await viaMenu(page, title);
        await page.locator("#screen-title", { hasText: title }).waitFor();
        await page.waitForLoadState("networkidle");
        expect({ path, violations: await axeViolations(page) }).toEqual({ path, violations: [] });
      }
      // The check can fail: an image without a text alternative is a critical finding.
      await page.evaluate(() => {
        const image = Object.assign(document.createElement("img"), { width: 40, height: 40 });
        document.querySelector("main")?.append(image);
      });
      expect((await axeViolations(page)).some((found) => found.startsWith("image-alt:"))).toBe(true);
      expect(problems).toEqual([]);
      await page.context().close();
    }, 120_000);
  }

  test("on a phone the menu is a button: a short top bar, every screen one tap away", async () => {
    const { page, problems } = await openConsole(suite.browser, `${suite.svc.url}/`, { viewport: phone });
    const menu = page.getByRole("navigation", { name: "svc" });
    const toggle = menu.getByRole("button", { name: "Menu" });
    await toggle.waitFor();
    expect((await menu.boundingBox())?.height ?? 999).toBeLessThan(70);
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    expect(await menu.getByRole("link", { name: "History", exact: true }).isVisible()).toBe(false);
    await toggle.click();
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    // Every screen is on the screen once the menu is open: none lies off to the side.
    for (const [, title] of screens) {
      const box = await menu.getByRole("link", { name: title, exact: true }).boundingBox();
      expect({ title, inside: box !== null && box.x >= 0 && box.x + box.width <= phone.width }).toEqual({
        title,
        inside: true,
      });
    }
    await menu.getByRole("link", { name: "History", exact: true }).click();
    await page.locator("#screen-title", { hasText: "History" }).waitFor();
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    expect(problems).toEqual([]);
    await page.context().close();
  }, 30_000);

  test("is keyboard-operable: a skip link first, then visible focus", async () => {
    const { page, problems } = await openConsole(suite.browser, `${suite.svc.url}/history`);
    // The console draws its screens once svc has said who this browser is (GET /api/auth/session).
    await page.locator("#screen-title").waitFor();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");
    await page.keyboard.press("Tab");
    const outline = await page.evaluate(() => {
      const focused = document.activeElement;
      return focused ? getComputedStyle(focused).outlineStyle : "none";
    });
    expect(outline).not.toBe("none");
    expect(problems).toEqual([]);
    await page.context().close();
  }, 30_000);

  test("follows the system's dark scheme", async () => {
    const context = await suite.browser.newContext({ colorScheme: "dark", viewport: desktop });
    const page = await context.newPage();
    await page.goto(`${suite.svc.url}/`);
    await page.locator("#screen-title").waitFor();
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.emulateMedia({ colorScheme: "light" });
    const light = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).not.toBe(light);
    // Dark means dark: the sum of the channels is low.
    const sum = (rgb: string) =>
      (rgb.match(/\d+/g) ?? []).slice(0, 3).reduce((total, n) => total + Number(n), 0);
    expect(sum(background)).toBeLessThan(150);
    expect(sum(light)).toBeGreaterThan(600);
    await page.screenshot({ path: screenshotPath("screen-dictate-dark") });
    await context.close();
  }, 30_000);
});
