import type { PluginStorageRepo } from "../db/plugin-storage-repo.ts";
import { reasonOf } from "../errors.ts";
import type { EventBus } from "../events.ts";
import type { Logger } from "../logger.ts";
import { ensurePrivateDir } from "../private-dir.ts";
import { scanPluginsDir } from "./discovery.ts";
import type { AfterTranscribeHook, BeforeCleanupHook } from "./hooks.ts";
import type { BeforeTranscribeHook } from "./hooks-audio.ts";
import type { BeforeOutputHook } from "./hooks-output.ts";
import type { Installer } from "./installer.ts";
import { createLifecycle, type PluginLifecycle } from "./lifecycle.ts";
import { type LoadResult, loadAll, parseEntry, unlisted } from "./load-all.ts";
import { disposePlugin } from "./loader.ts";
import type { PipelineEvent } from "./pipeline-events.ts";
import { provideSdk } from "./sdk-provider.ts";
import { defaultStorageLimits, type StorageLimits } from "./storage.ts";
import {
  defaultTimeouts,
  type LoadedPlugin,
  type PluginHook,
  type PluginSettingsStore,
  type PluginStatus,
  type PluginTimeouts,
} from "./types.ts";

export interface PluginHostOptions {
  pluginsDir: string;
  settings: PluginSettingsStore;
  storage: PluginStorageRepo;
  events: EventBus;
  logger: Logger;
  /** Without one, listed plugins that are not on disk are reported missing and API installs fail. */
  installer?: Installer;
  timeouts?: Partial<PluginTimeouts>;
  storageLimits?: StorageLimits;
}

export interface PluginHost extends PluginLifecycle {
  readonly pluginsDir: string;
  readonly timeouts: PluginTimeouts;
  /** Recovers interrupted installs, provides svc-sdk, loads plugins and follows setting changes. */
  start(): Promise<void>;
  /** Loads the current settings' plugins with fresh code; concurrent calls share one extra run. */
  reload(): Promise<void>;
  /** Listed plugins in `plugins` order, then packages on disk that are not listed. */
  list(): Promise<PluginStatus[]>;
  /**
   * Loaded plugins' `afterCleanup` hooks for the pipeline's guarded runner: `enforce: "pre"`
   * plugins first, then the rest in `plugins` order, then `"post"` ones.
   */
  hooks(): readonly PluginHook[];
  /** The hooks that run before `afterCleanup`, in the same order. */
  transcriptHooks(): TranscriptHooks;
  /**
   * Hands a pipeline event to every loaded plugin's `event` hook, in-process: `type` is
   * `dictation.<name>` and `event` is Freestyle's object, with the text.
   */
  notify(event: PipelineEvent): void;
  /** The loaded plugin that owns the namespace `slug`. */
  find(slug: string): LoadedPlugin | undefined;
  /** Unloads every plugin (shutdown). */
  stop(): Promise<void>;
}

export interface TranscriptHooks {
  beforeTranscribe: readonly BeforeTranscribeHook[];
  afterTranscribe: readonly AfterTranscribeHook[];
  beforeCleanup: readonly BeforeCleanupHook[];
  beforeOutput: readonly BeforeOutputHook[];
}

interface Generation extends LoadResult {
  bySlug: Map<string, LoadedPlugin>;
  hooks: PluginHook[];
  transcript: TranscriptHooks;
}

const empty: Generation = {
  loaded: [],
  statuses: [],
  bySlug: new Map(),
  hooks: [],
  transcript: { beforeTranscribe: [], afterTranscribe: [], beforeCleanup: [], beforeOutput: [] },
};

const rank = (plugin: LoadedPlugin) =>
  plugin.plugin.enforce === "pre" ? 0 : plugin.plugin.enforce === "post" ? 2 : 1;

/** The plugins' hooks of one kind, in the order given. */
function hooksOf<
  K extends "afterCleanup" | "afterTranscribe" | "beforeCleanup" | "beforeTranscribe" | "beforeOutput",
>(
  ordered: readonly LoadedPlugin[],
  kind: K,
): { pluginName: string; run: NonNullable<LoadedPlugin["plugin"][K]> }[] {
  return ordered.flatMap((plugin) => {
    const run = plugin.plugin[kind];
    return run ? [{ pluginName: plugin.name, run: run as NonNullable<LoadedPlugin["plugin"][K]> }] : [];
  });
}

export function createPluginHost(options: PluginHostOptions): PluginHost {
  const { pluginsDir, settings, events, logger, installer } = options;
  const timeouts = { ...defaultTimeouts, ...options.timeouts };
  let current = empty;
  let generation = 0;
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  let unsubscribe: (() => void) | undefined;
  let unobserve: (() => void) | undefined;

  /**
   * Hands a server event to every loaded plugin's `event` hook; one that throws is reported. The
   * object carries svc's fields and, under `event`, the same event as Freestyle's hooks take it
   * (`{ event }`): a plugin written for either reads its own shape.
   */
  function observe(event: Readonly<Record<string, unknown>>, freestyle: object = event): void {
    const shared = Object.freeze({ ...event, event: Object.freeze({ ...freestyle }) });
    for (const plugin of current.loaded) {
      const hook = plugin.plugin.event;
      if (!hook) continue;
      const failed = (error: unknown) =>
        logger.warn(`plugin "${plugin.name}" failed in event: ${reasonOf(error)}`, {
          plugin: plugin.name,
          hook: "event",
        });
      try {
        const result: unknown = hook(shared);
        if (result instanceof Promise) result.catch(failed);
      } catch (error) {
        failed(error);
      }
    }
  }

  async function unload(plugins: readonly LoadedPlugin[]): Promise<void> {
    for (const plugin of plugins) {
      const failure = await disposePlugin(plugin, timeouts.disposeMs);
      if (failure) {
        logger.error(`plugin "${plugin.name}" failed in dispose: ${failure}`, {
          plugin: plugin.name,
          hook: "dispose",
        });
      }
    }
  }

  async function loadGeneration(): Promise<void> {
    generation += 1;
    const result = await loadAll(
      {
        pluginsDir,
        storage: options.storage,
        storageLimits: options.storageLimits ?? defaultStorageLimits,
        logger,
        timeouts,
        installer,
        readSetting: (key) => settings.read(key),
      },
      settings.entries(),
      new Set(settings.disabled()),
      generation,
    );
    // `enforce: "pre"` plugins' hooks first, "post" ones last, the rest in `plugins` order.
    const ordered = [...result.loaded].sort((a, b) => rank(a) - rank(b));
    const previous = current;
    // The new set answers from here on; the old one is disposed after, so no request sees none.
    current = {
      ...result,
      bySlug: new Map(result.loaded.map((plugin) => [plugin.slug, plugin])),
      hooks: hooksOf(ordered, "afterCleanup"),
      transcript: {
        beforeTranscribe: hooksOf(ordered, "beforeTranscribe"),
        afterTranscribe: hooksOf(ordered, "afterTranscribe"),
        beforeCleanup: hooksOf(ordered, "beforeCleanup"),
        beforeOutput: hooksOf(ordered, "beforeOutput"),
      },
    };
    await unload(previous.loaded);
    logger.info("plugins loaded", {
      loaded: result.loaded.map((plugin) => plugin.name),
      failed: result.statuses.filter((status) => status.error).map((status) => status.name),
    });
    events.publish("plugins.changed", {
      // Whether a plugin failed, not its message: GET /api/plugins has that.
      plugins: result.statuses.map(({ name, slug, enabled, loaded, error }) => ({
        name,
        slug,
        enabled,
        loaded,
        failed: error !== null,
      })),
    });
  }

  function reload(): Promise<void> {
    if (queued) return queued;
    const run = () => {
      running = loadGeneration().finally(() => {
        running = undefined;
      });
      return running;
    };
    if (!running) return run();
    // A change while loading gets one more run after it, however many changes arrive meanwhile.
    queued = running
      .catch(() => {})
      .then(() => {
        queued = undefined;
        return run();
      });
    return queued;
  }

  async function list(): Promise<PluginStatus[]> {
    const listed = current.statuses;
    const names = new Set(settings.entries().map((entry) => parseEntry(entry).name));
    return [...listed, ...unlisted(await scanPluginsDir(pluginsDir), names)];
  }

  const lifecycle = createLifecycle({
    pluginsDir,
    settings,
    storage: options.storage,
    events,
    installer,
    reload,
    // A settings change queues a reload when one is running, or starts one: either began after it.
    reloaded: () => queued ?? running ?? reload(),
    list,
  });

  return {
    pluginsDir,
    timeouts,
    ...lifecycle,
    async start() {
      ensurePrivateDir(pluginsDir);
      await installer?.recover();
      provideSdk();
      unobserve ??= events.subscribe((event) => observe(event));
      unsubscribe ??= settings.onChange(() => {
        reload().catch((error) => logger.error("reloading plugins failed", { error: reasonOf(error) }));
      });
      await reload();
    },
    reload,
    list,
    hooks: () => current.hooks,
    transcriptHooks: () => current.transcript,
    notify(event) {
      observe({ ...event, type: `dictation.${event.type}`, time: new Date().toISOString() }, event);
    },
    find: (slug) => current.bySlug.get(slug),
    async stop() {
      unsubscribe?.();
      unsubscribe = undefined;
      unobserve?.();
      unobserve = undefined;
      await running?.catch(() => {});
      const last = current;
      current = empty;
      await unload(last.loaded);
    },
  };
}
