import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { MiddlewareHandler } from "hono";
import { reasonOf } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { PluginManifest } from "./manifest.ts";
import type { PluginStorage } from "./storage.ts";
import { withTimeout } from "./timeout.ts";
import {
  type LoadedPlugin,
  type PluginObject,
  type PluginStage,
  type PluginTimeouts,
  pluginFunctions,
} from "./types.ts";

/** A step of loading failed; `stage` names it for the report. */
export class PluginLoadError extends Error {
  readonly stage: PluginStage;
  constructor(stage: PluginStage, message: string) {
    super(message);
    this.name = "PluginLoadError";
    this.stage = stage;
  }
}

export interface LoadRequest {
  dir: string;
  manifest: PluginManifest;
  slug: string;
  options: Readonly<Record<string, unknown>>;
  /** The plugins directory: a plugin's data folder is `.data/<slug>` in it. */
  pluginsDir: string;
  /** Distinguishes this load's module URL from earlier ones, so rebuilt code is imported. */
  generation: number;
  storage: PluginStorage;
  logger: Logger;
  timeouts: PluginTimeouts;
  /** svc's settings as text, secrets never (`ctx.settings.get`). */
  readSetting(key: string): string | undefined;
}

async function step<T>(stage: PluginStage, ms: number, work: () => PromiseLike<T> | T): Promise<T> {
  try {
    return await withTimeout(
      Promise.resolve().then(() => work()),
      ms,
    );
  } catch (error) {
    throw new PluginLoadError(stage, reasonOf(error));
  }
}

const isFunction = (value: unknown): value is (...args: never[]) => unknown => typeof value === "function";

/** Checks the factory's result member by member, so a wrong shape fails at load, not mid-request. */
/** The plugin object's members svc reads; any other function on it is reported as ignored. */
const knownMembers = new Set<string>(["name", "middleware", "enforce", ...pluginFunctions]);

function checkPlugin(value: unknown): PluginObject {
  if (typeof value !== "object" || value === null) {
    throw new Error(`the factory returned ${value === null ? "null" : typeof value}, not a plugin object`);
  }
  const record = value as Record<string, unknown>;
  const { name, middleware = [], enforce } = record;
  if (typeof name !== "string" || name.length === 0) throw new Error("the plugin has no name");
  if (enforce !== undefined && enforce !== "pre" && enforce !== "post")
    throw new Error('enforce must be "pre", "post" or absent');
  for (const member of pluginFunctions) {
    const fn = record[member];
    if (fn !== undefined && !isFunction(fn)) throw new Error(`${member} must be a function`);
  }
  if (!Array.isArray(middleware) || !middleware.every(isFunction)) {
    throw new Error("middleware must be an array of (c, next) functions");
  }
  const ignored = Object.keys(record).filter((key) => !knownMembers.has(key) && isFunction(record[key]));
  // Bound to the plugin's own object, so hooks that use `this` see what setup left there.
  const bound = Object.fromEntries(
    pluginFunctions.flatMap((member) => {
      const fn = record[member];
      return isFunction(fn) ? [[member, fn.bind(value)]] : [];
    }),
  ) as Pick<PluginObject, (typeof pluginFunctions)[number]>;
  return {
    ...bound,
    name,
    middleware: middleware as MiddlewareHandler[],
    enforce: enforce as PluginObject["enforce"],
    ignored,
  };
}

function pluginLogger(logger: Logger, name: string) {
  const child = logger.child({ plugin: name });
  const emit = (level: "debug" | "info" | "warn" | "error") => (message: unknown, extra?: unknown) =>
    child[level](`[${name}] ${String(message)}`, extra && typeof extra === "object" ? { extra } : undefined);
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

/** Imports, builds and sets up one plugin. Every step is time-limited. */
export async function loadPlugin(request: LoadRequest): Promise<LoadedPlugin> {
  const { dir, manifest, slug, timeouts } = request;
  const entry = join(dir, manifest.main);
  const info = await stat(entry).catch(() => undefined);
  if (!info?.isFile())
    throw new PluginLoadError("import", `main file ${manifest.main} does not exist; build the plugin`);
  // A path (not a file URL) with a query: Bun then evaluates the rebuilt file afresh.
  const module = await step("import", timeouts.importMs, () => import(`${entry}?v=${request.generation}`));
  const factory: unknown = (module as { default?: unknown }).default;
  if (!isFunction(factory)) {
    throw new PluginLoadError(
      "import",
      "the entry module has no default export function (the plugin factory)",
    );
  }
  const plugin = await step("factory", timeouts.factoryMs, async () =>
    // A deep copy: the plugin owns its options and may change them, nested values too,
    // without touching the stored setting or what its next load receives.
    checkPlugin(await (factory as (options: unknown) => unknown)(structuredClone(request.options))),
  );
  const options = await withDefaults(plugin, request.options, timeouts.factoryMs);
  // The plugin's own folder for files (caches, models, exports): a dot folder of the plugins
  // directory, which the host never loads from, kept when the plugin is updated.
  const dataPath = join(request.pluginsDir, ".data", slug);
  const ownSetting = (key: string): string | undefined => {
    const value = Object.hasOwn(options, key) ? options[key] : undefined;
    return value === undefined || value === null
      ? undefined
      : typeof value === "string"
        ? value
        : JSON.stringify(value);
  };
  const ctx = Object.freeze({
    name: manifest.name,
    slug,
    basePath: `/api/plugins/${slug}`,
    mode: "server" as const,
    storage: request.storage,
    logger: pluginLogger(request.logger, manifest.name),
    options: deepFreeze(structuredClone(options)),
    // Freestyle's `directory`: here the plugin's own data folder, never svc's database folder.
    directory: dataPath,
    settings: Object.freeze({ get: (key: string) => request.readSetting(String(key)), getOwn: ownSetting }),
    dataDir: async () => {
      await mkdir(dataPath, { recursive: true });
      return dataPath;
    },
  });
  if (plugin.setup) await mkdir(dataPath, { recursive: true });
  const setup = plugin.setup;
  if (setup) await step("setup", timeouts.setupMs, () => setup(ctx));
  return { name: manifest.name, slug, dir, manifest, plugin };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `defaults` under `options`: the user's values win, nested objects merged key by key. */
function mergeDefaults(
  defaults: Record<string, unknown>,
  options: Record<string, unknown>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...defaults };
  for (const [key, value] of Object.entries(options)) {
    const base = merged[key];
    merged[key] = isPlainObject(base) && isPlainObject(value) ? mergeDefaults(base, value) : value;
  }
  return merged;
}

/**
 * Runs the plugin's `config` hook (Freestyle's) at load: it sees its options and returns defaults
 * for them, which the options from the `plugins` setting override.
 */
async function withDefaults(
  plugin: PluginObject,
  options: Readonly<Record<string, unknown>>,
  ms: number,
): Promise<Record<string, unknown>> {
  const config = plugin.config;
  if (!config) return structuredClone(options) as Record<string, unknown>;
  const returned: unknown = await step("config", ms, () => config(deepFreeze(structuredClone(options))));
  if (returned === undefined || returned === null) return structuredClone(options) as Record<string, unknown>;
  if (!isPlainObject(returned))
    throw new PluginLoadError("config", "config must return an object or nothing");
  return mergeDefaults(structuredClone(returned), structuredClone(options) as Record<string, unknown>);
}

/** A frozen value, nested objects too: the options a plugin reads through its context. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

/** Calls a plugin's dispose; returns why it failed, if it did. */
export async function disposePlugin(loaded: LoadedPlugin, ms: number): Promise<string | undefined> {
  const dispose = loaded.plugin.dispose;
  if (!dispose) return undefined;
  try {
    await withTimeout(
      Promise.resolve().then(() => dispose()),
      ms,
    );
    return undefined;
  } catch (error) {
    return reasonOf(error);
  }
}
