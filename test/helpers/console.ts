import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";

/** A console page and what went wrong on it: uncaught errors, console errors, CSP refusals. */
export interface ConsolePage {
  page: Page;
  problems: string[];
  /**
   * Settles when the page's `/api/events` socket has received its hello: from then on, a change
   * made through the API reaches the page. A change made before can be lost, since the page
   * loads its data and opens the socket at the same time and does not load again.
   */
  live: Promise<void>;
}

export const desktop = { width: 1280, height: 800 } as const;
export const phone = { width: 390, height: 844 } as const;

/**
 * Opens `url` in a fresh context of `browser` and records every uncaught error and every
 * console error (Chromium reports CSP violations there) in `problems`.
 */
export async function openConsole(
  browser: Browser,
  url: string,
  options: { viewport?: { width: number; height: number }; colorScheme?: "light" | "dark" } = {},
): Promise<ConsolePage> {
  const context = await browser.newContext({
    viewport: options.viewport ?? desktop,
    colorScheme: options.colorScheme ?? "light",
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  // Listeners attached in the same turn as the socket's event, so no frame can pass unseen.
  const live = new Promise<void>((resolve) => {
    page.on("websocket", (socket) => {
      if (!socket.url().endsWith("/api/events")) return;
      socket.on("framereceived", (frame) => {
        if (String(frame.payload).includes('"type":"hello"')) resolve();
      });
    });
  });
  await page.goto(url);
  return { page, problems, live };
}

/** Where browser tests keep their screenshots (a CI artifact). */
export function screenshotPath(name: string): string {
  const dir = join(import.meta.dir, "../../bench-results/screenshots");
  mkdirSync(dir, { recursive: true });
  return join(dir, `${name}.png`);
}

/** Form controls in the screen with no accessible name: no label, aria-label(ledby) or text. */
export const unlabelledControls = (page: Page): Promise<string[]> =>
  page.evaluate(() =>
    [...document.querySelectorAll<HTMLInputElement>("main input, main select, main textarea, main button")]
      .filter((control) =>
        control.tagName === "BUTTON"
          ? !control.textContent?.trim() && !control.getAttribute("aria-label")
          : (control.labels?.length ?? 0) === 0 &&
            !control.getAttribute("aria-label") &&
            !control.getAttribute("aria-labelledby"),
      )
      .map((control) => control.outerHTML.slice(0, 120)),
  );

/** axe-core's script, read once: Playwright's evaluate runs it past the console's CSP. */
let axeSource: string | undefined;

/**
 * What axe-core finds on the page as it stands that is serious or critical: "rule: target" lines
 * (an empty list passes). Contrast, names, roles, heading order and the rest of its WCAG rules.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  axeSource ??= readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
  await page.evaluate(axeSource);
  return await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(root: Document): Promise<AxeResults> } }).axe;
    interface AxeResults {
      violations: { id: string; impact: string | null; nodes: { target: unknown[] }[] }[];
    }
    const results = await axe.run(document);
    return results.violations
      .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
      .flatMap((violation) => violation.nodes.map((node) => `${violation.id}: ${node.target.join(" ")}`));
  });
}

/**
 * Moves to a screen through the menu, as a person does: on a phone the menu is a button that
 * opens the list first.
 */
export async function viaMenu(page: Page, title: string): Promise<void> {
  const menu = page.getByRole("navigation", { name: "svc" });
  const toggle = menu.getByRole("button", { name: "Menu" });
  // The console draws once it knows who it is talking to (GET /api/auth/session).
  await menu.waitFor();
  if (await toggle.isVisible()) await toggle.click();
  await menu.getByRole("link", { name: title, exact: true }).click();
}
