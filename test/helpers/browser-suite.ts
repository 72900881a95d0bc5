import { afterAll, beforeAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { type RunningServer, startBinary } from "./binary.ts";
import { launchChromium } from "./browser.ts";

/** One test file's compiled svc and Chromium. */
export interface BrowserSuite {
  /** The data folder (svc.db, and whatever the file put there); removed after the file. */
  readonly dir: string;
  readonly svc: RunningServer;
  readonly browser: Browser;
}

export interface BrowserSuiteOptions {
  /** The environment beside SVC_DB_PATH (`<dir>/svc.db`). */
  env?: (dir: string) => Record<string, string>;
  /** Chromium's extra flags (a fake microphone, say). */
  chromium?: (dir: string) => readonly string[];
  /** Runs before svc starts: fixtures into the folder. */
  prepare?: (dir: string) => void | Promise<void>;
  /** Runs once svc and Chromium are up: settings, installs. */
  ready?: (suite: BrowserSuite) => void | Promise<void>;
  /** Makes the data folder; default a fresh one under the temp directory. */
  makeDir?: () => string;
}

/**
 * The setup every console suite shares: before the file's tests a data folder, the compiled
 * binary over it and Debian's Chromium, started together; after them, all three gone. Call it at
 * the top of the file; read `svc`, `browser` and `dir` inside tests and hooks.
 */
export function browserSuite(name: string, options: BrowserSuiteOptions = {}): BrowserSuite {
  const state: { dir?: string; svc?: RunningServer; browser?: Browser } = {};
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the ${name} suite's ${what} is read before it started`);
    return value;
  };
  const suite: BrowserSuite = {
    get dir() {
      return started(state.dir, "folder");
    },
    get svc() {
      return started(state.svc, "svc");
    },
    get browser() {
      return started(state.browser, "Chromium");
    },
  };
  beforeAll(async () => {
    const dir = options.makeDir?.() ?? mkdtempSync(join(tmpdir(), `svc-${name}-`));
    state.dir = dir;
    await options.prepare?.(dir);
    [state.svc, state.browser] = await Promise.all([
      startBinary({ SVC_DB_PATH: join(dir, "svc.db"), ...options.env?.(dir) }),
      launchChromium(options.chromium?.(dir)),
    ]);
    await options.ready?.(suite);
  }, 300_000);
  afterAll(async () => {
    await state.browser?.close();
    await state.svc?.stop();
    if (state.dir) rmSync(state.dir, { recursive: true, force: true });
  });
  return suite;
}
