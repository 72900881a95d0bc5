import { mkdirSync } from "node:fs";
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
  options: { viewport?: { width: number; height: number } } = {},
): Promise<ConsolePage> {
  const context = await browser.newContext({ viewport: options.viewport ?? desktop });
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
