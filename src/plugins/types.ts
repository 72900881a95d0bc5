import type { MiddlewareHandler } from "hono";
import type { AfterCleanupHook, AfterTranscribeHook, BeforeCleanupHook } from "./hooks.ts";
import type { BeforeTranscribeHook } from "./hooks-audio.ts";
import type { BeforeOutputHook } from "./hooks-output.ts";
import type { PluginManifest, PluginPage } from "./manifest.ts";

/** One entry of the `plugins` setting: a package name or `[name, options]`. */
export type PluginEntry = string | readonly [string, Readonly<Record<string, unknown>>];

/** The two settings the host obeys, read and written through the settings service. */
export interface PluginSettingsStore {
  entries(): readonly PluginEntry[];
  disabled(): readonly string[];
  setEntries(entries: PluginEntry[]): void;
  setDisabled(names: string[]): void;
  /** Called after either setting changed, whoever changed it. */
  onChange(listener: () => void): () => void;
  /** Any other setting as text (JSON for non-strings) for `ctx.settings.get`; undefined for secrets. */
  read(key: string): string | undefined;
}

export type { AfterCleanupHook as PluginHook } from "./hooks.ts";

/** The object a plugin factory returned, after the host checked its shape. */
/** The hooks a loaded plugin takes part in, in the order a dictation meets them (`event` aside). */
export const pluginHooks = [
  "beforeTranscribe",
  "afterTranscribe",
  "beforeCleanup",
  "afterCleanup",
  "beforeOutput",
  "event",
] as const;

/** Every function of the plugin object svc calls besides `middleware`. */
export const pluginFunctions = ["setup", "config", ...pluginHooks, "dispose"] as const;

export interface PluginObject {
  name: string;
  setup?: (ctx: unknown) => unknown;
  /** Runs at load, before setup: returns defaults for the plugin's own options (Freestyle's hook). */
  config?: (config: Readonly<Record<string, unknown>>) => unknown;
  middleware: MiddlewareHandler[];
  afterCleanup?: AfterCleanupHook["run"];
  afterTranscribe?: AfterTranscribeHook["run"];
  beforeTranscribe?: BeforeTranscribeHook["run"];
  beforeCleanup?: BeforeCleanupHook["run"];
  beforeOutput?: BeforeOutputHook["run"];
  /**
   * Observes server events (the /api/events messages) and pipeline events, each with Freestyle's
   * object under `event`; its result is not awaited.
   */
  event?: (event: Readonly<Record<string, unknown>>) => unknown;
  /** Where its hooks run among the others': "pre" first, "post" last, otherwise in `plugins` order. */
  enforce?: "pre" | "post";
  dispose?: () => unknown;
  /** Functions the plugin defines that svc does not run (another host's hooks, a typo). */
  ignored: string[];
}

/** A plugin that imported, built and set up without error, ready for hooks and requests. */
export interface LoadedPlugin {
  name: string;
  slug: string;
  dir: string;
  manifest: PluginManifest;
  plugin: PluginObject;
}

/** Steps of loading (and unloading) a plugin; failures name the step. */
export type PluginStage =
  | "resolve"
  | "install"
  | "manifest"
  | "import"
  | "factory"
  | "config"
  | "setup"
  | "dispose";

export interface PluginFailure {
  stage: PluginStage;
  message: string;
}

/** A page as the app needs it to show: where to load it from. */
export interface PluginPageView extends PluginPage {
  url: string;
}

/** One plugin as `GET /api/plugins` describes it. */
export interface PluginStatus {
  name: string;
  specifier: string;
  slug: string;
  version: string | null;
  description: string | null;
  displayName: string | null;
  icon: string | null;
  /** In the `plugins` setting. */
  listed: boolean;
  /** Listed and not in `disabled_plugins`. */
  enabled: boolean;
  /** Its package folder is in the plugins directory. */
  installed: boolean;
  /** Running: hooks and routes active. */
  loaded: boolean;
  /** A development copy made by `svc plugins link`. */
  dev: boolean;
  /** `[DEV]` for development copies, otherwise null. */
  label: string | null;
  options: Readonly<Record<string, unknown>>;
  pages: PluginPageView[];
  hooks: string[];
  /** Functions the plugin offers that svc does not run: reported, never silently dropped. */
  ignoredHooks: string[];
  routes: boolean;
  error: PluginFailure | null;
}

export interface PluginTimeouts {
  importMs: number;
  factoryMs: number;
  setupMs: number;
  disposeMs: number;
  /** Longest a plugin's middleware may take to answer one request. */
  requestMs: number;
}

export const defaultTimeouts: PluginTimeouts = {
  importMs: 10_000,
  factoryMs: 5_000,
  setupMs: 10_000,
  disposeMs: 5_000,
  requestMs: 30_000,
};
