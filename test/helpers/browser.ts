import { type Browser, chromium } from "playwright-core";

/**
 * Debian's Chromium, headless; the tests never let a tool download a browser of its own.
 * `extraArgs` adds flags (a fake microphone, say).
 */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...extraArgs,
    ],
  });
}
