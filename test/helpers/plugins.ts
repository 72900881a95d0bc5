import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createDictationApi } from "../../src/plugins/hook-api.ts";
import { hookAppContext, runHooks } from "../../src/plugins/hooks.ts";
import type { PluginHostOptions } from "../../src/plugins/host.ts";
import type { PluginEntry, PluginStatus } from "../../src/plugins/types.ts";
import { createTestApp, type TestApp } from "./app.ts";

export const fixturesDir = resolve(import.meta.dir, "../fixtures/plugins");

export const fastTimeouts = { importMs: 2000, factoryMs: 1000, setupMs: 300, disposeMs: 300, requestMs: 300 };

/** A fresh plugins directory holding copies of the named fixture folders. */
export function pluginsDirWith(...fixtures: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), "svc-plugins-"));
  for (const name of fixtures) cpSync(join(fixturesDir, name), join(dir, name), { recursive: true });
  return dir;
}

export interface PluginApp extends TestApp {
  pluginsDir: string;
  status(name: string): Promise<PluginStatus | undefined>;
}

/** An app whose `plugins` setting lists `entries`, with the host started. */
export async function startPluginApp(options: {
  fixtures?: string[];
  pluginsDir?: string;
  entries?: PluginEntry[];
  disabled?: string[];
  host?: Partial<PluginHostOptions>;
  npmRegistry?: string;
  dbPath?: string;
  bridgeScriptUrl?: string;
  /** SVC_FREESTYLE_DESKTOP=1; default off. */
  freestyleDesktop?: boolean;
}): Promise<PluginApp> {
  const pluginsDir = options.pluginsDir ?? pluginsDirWith(...(options.fixtures ?? []));
  const app = createTestApp({
    pluginsDir,
    npmRegistry: options.npmRegistry,
    pluginHost: { timeouts: fastTimeouts, ...options.host },
    dbPath: options.dbPath,
    freestyleDesktop: options.freestyleDesktop,
    bridgeScriptUrl: options.bridgeScriptUrl,
  });
  if (options.disabled) app.services.settings.set("disabled_plugins", options.disabled);
  if (options.entries) app.services.settings.set("plugins", options.entries);
  await app.plugins.start();
  return {
    ...app,
    pluginsDir,
    status: async (name) => (await app.plugins.list()).find((item) => item.name === name),
  };
}

/** Runs the loaded afterCleanup hooks through the pipeline's guarded runner. */
export async function runPluginHooks(app: TestApp, text: string, appContext: { app?: string } | null = null) {
  const input = {
    text,
    raw: text,
    appContext: hookAppContext(appContext),
    language: "en",
    source: "api" as const,
    providerId: "none",
    modelId: "none",
  };
  const result = await runHooks(app.plugins.hooks(), input, text, {
    timeoutMs: 300,
    dictation: createDictationApi(),
  });
  return result.text;
}
