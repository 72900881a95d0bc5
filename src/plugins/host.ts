import { mkdir } from "node:fs/promises";
import type { PluginStorageRepo } from "../db/plugin-storage-repo.ts";
import { reasonOf } from "../errors.ts";
import type { EventBus } from "../events.ts";
import type { Logger } from "../logger.ts";
import { scanPluginsDir } from "./discovery.ts";
import type { Installer } from "./installer.ts";
import { createLifecycle, type PluginLifecycle } from "./lifecycle.ts";
import { type LoadResult, loadAll, parseEntry, unlisted } from "./load-all.ts";
import { disposePlugin } from "./loader.ts";
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
  /** Loaded plugins' `afterCleanup` hooks, in `plugins` order, for the pipeline's guarded runner. */
  hooks(): readonly PluginHook[];
  /** The loaded plugin that owns the namespace `slug`. */
  find(slug: string): LoadedPlugin | undefined;
  /** Unloads every plugin (shutdown). */
  stop(): Promise<void>;
}

interface Generation extends LoadResult {
  bySlug: Map<string, LoadedPlugin>;
  hooks: PluginHook[];
}

const empty: Generation = { loaded: [], statuses: [], bySlug: new Map(), hooks: [] };

export function createPluginHost(options: PluginHostOptions): PluginHost {
  const { pluginsDir, settings, events, logger, installer } = options;
  const timeouts = { ...defaultTimeouts, ...options.timeouts };
  let current = empty;
  let generation = 0;
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  let unsubscribe: (() => void) | undefined;

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
      },
      settings.entries(),
      new Set(settings.disabled()),
      generation,
    );
    const previous = current;
    // The new set answers from here on; the old one is disposed after, so no request sees none.
    current = {
      ...result,
      bySlug: new Map(result.loaded.map((plugin) => [plugin.slug, plugin])),
      hooks: result.loaded.flatMap((plugin) => {
        const run = plugin.plugin.afterCleanup;
        return run ? [{ pluginName: plugin.name, run }] : [];
      }),
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
      await mkdir(pluginsDir, { recursive: true });
      await installer?.recover();
      provideSdk();
      unsubscribe ??= settings.onChange(() => {
        reload().catch((error) => logger.error("reloading plugins failed", { error: reasonOf(error) }));
      });
      await reload();
    },
    reload,
    list,
    hooks: () => current.hooks,
    find: (slug) => current.bySlug.get(slug),
    async stop() {
      unsubscribe?.();
      unsubscribe = undefined;
      await running?.catch(() => {});
      const last = current;
      current = empty;
      await unload(last.loaded);
    },
  };
}
