import { describe, expect, test } from "bun:test";
import { browserSuite } from "../helpers/browser-suite.ts";
import { desktop, openConsole, phone, screenshotPath } from "../helpers/console.ts";

// The Plugins screen and a plugin page inside the console, against the compiled binary: the
// profanity filter (carried by svc, so installing it needs no registry) end to end.

// The registry points nowhere: the bundled copy must be what installs.
const suite = browserSuite("console-plugins", { env: () => ({ SVC_NPM_REGISTRY: "http://127.0.0.1:9" }) });

const api = async <T>(path: string): Promise<T> =>
  (await (await fetch(`${suite.svc.url}${path}`)).json()) as T;

describe("plugins in the console", () => {
  test("install with Enable now, open its page from the menu, use it through window.svc", async () => {
    const { page, problems } = await openConsole(suite.browser, `${suite.svc.url}/plugins`);
    await page.getByLabel("npm package name").fill("@svc/profanity-filter");
    await page.getByRole("checkbox", { name: "Enable now" }).check();
    await page.getByRole("button", { name: "Install" }).click();
    await page.locator(".toast", { hasText: "Installed Profanity filter" }).waitFor({ timeout: 15_000 });
    const card = page.locator("li.plugin", { hasText: "@svc/profanity-filter" });
    await card.locator(".badge", { hasText: "on" }).waitFor();
    // Its icon is drawn, not an emoji: it needs no emoji font.
    expect(await card.locator("svg.plugin-icon path").count()).toBeGreaterThan(0);

    // Its page is in the menu, with its icon, and opens in the console.
    const link = page.getByRole("navigation").getByRole("link", { name: "Profanity filter" });
    expect(await link.locator("svg.plugin-icon path").count()).toBeGreaterThan(0);
    await link.click();
    expect(new URL(page.url()).pathname).toBe("/plugins/svc-profanity-filter/profanity-filter");
    const frame = page.frameLocator("iframe.plugin-frame");
    await frame.locator("#rows tr").first().waitFor({ timeout: 10_000 });
    expect(await page.locator("iframe.plugin-frame").getAttribute("sandbox")).toBe("allow-scripts");

    // A word added inside the frame reaches the plugin's route, and its toast shows in the console.
    await frame.getByLabel("Word or phrase").fill("blimey");
    await frame.getByLabel("Replacements").fill("goodness, gosh");
    await frame.getByRole("button", { name: "Add" }).click();
    await page.locator(".toast", { hasText: 'Added "blimey"' }).waitFor({ timeout: 10_000 });
    const words = await api<{ replacements: { word: string; alternatives: string[] }[] }>(
      "/api/plugins/svc-profanity-filter/replacements",
    );
    expect(words.replacements).toContainEqual({ word: "blimey", alternatives: ["goodness", "gosh"] });
    await page.screenshot({ path: screenshotPath("plugin-page-desktop") });
    expect(problems).toEqual([]);
    await page.context().close();

    // On a phone the frame fits the screen: nothing wider than it, inside or out.
    const small = await openConsole(
      suite.browser,
      `${suite.svc.url}/plugins/svc-profanity-filter/profanity-filter`,
      {
        viewport: phone,
      },
    );
    const phoneFrame = small.page.frameLocator("iframe.plugin-frame");
    await phoneFrame.locator("#rows tr").first().waitFor({ timeout: 10_000 });
    const box = await small.page.locator("iframe.plugin-frame").boundingBox();
    const inner = await phoneFrame
      .locator("html")
      .evaluate((html) => ({ scroll: html.scrollWidth, client: html.clientWidth }));
    const outer = await small.page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    await small.page.screenshot({ path: screenshotPath("plugin-page-phone") });
    // The whole width of the screen, and its content within it.
    expect({ left: box?.x, width: box?.width }).toEqual({ left: 0, width: phone.width });
    expect(inner.scroll).toBeLessThanOrEqual(inner.client);
    expect(outer).toBeLessThanOrEqual(0);
    // Its bottom edge on the screen: the page scrolls inside the frame, not the frame off the screen.
    expect((box?.y ?? 0) + (box?.height ?? 0)).toBeLessThanOrEqual(phone.height);
    expect(small.problems).toEqual([]);
    await small.page.context().close();
  }, 60_000);

  test("disable takes the page out of the menu; uninstall removes the plugin", async () => {
    const { page, problems } = await openConsole(suite.browser, `${suite.svc.url}/plugins`, {
      viewport: phone,
    });
    const card = page.locator("li.plugin", { hasText: "@svc/profanity-filter" });
    const menuLink = page
      .getByRole("navigation")
      .getByRole("link", { name: "Profanity filter", includeHidden: true });
    // In the menu first, so that its going away below is the Disable's doing.
    await menuLink.waitFor({ state: "attached" });
    await card.getByRole("button", { name: "Disable" }).click();
    await card.locator(".badge", { hasText: "off" }).waitFor();
    await menuLink.waitFor({ state: "detached" });
    // The page of a plugin that is off says so instead of framing it.
    await page.goto(`${suite.svc.url}/plugins/svc-profanity-filter/profanity-filter`);
    await page.getByText("No enabled plugin has this page.").waitFor();
    await page.goto(`${suite.svc.url}/plugins`);
    const uninstall = page.locator("li.plugin", { hasText: "@svc/profanity-filter" }).getByRole("button", {
      name: "Uninstall",
    });
    await uninstall.click();
    await page.getByRole("button", { name: /Click again to uninstall/ }).click();
    await page.getByText("No plugins yet.").waitFor({ timeout: 10_000 });
    expect((await api<{ items: unknown[] }>("/api/plugins")).items).toEqual([]);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  test("an unknown package gets the registry's sentence at the form", async () => {
    const { page, problems } = await openConsole(suite.browser, `${suite.svc.url}/plugins`, {
      viewport: desktop,
    });
    await page.getByLabel("npm package name").fill("not a package!");
    await page.getByRole("button", { name: "Install" }).click();
    const error = page.locator("#install-error");
    await error.waitFor();
    expect(await error.textContent()).toMatch(/package name/i);
    // The refused request is the one console error Chromium logs.
    expect(problems.filter((problem) => !problem.includes("400"))).toEqual([]);
    await page.context().close();
  }, 30_000);
});
