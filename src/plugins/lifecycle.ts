import { rm } from "node:fs/promises";
import type { PluginStorageRepo } from "../db/plugin-storage-repo.ts";
import { AppError, notFound } from "../errors.ts";
import type { EventBus } from "../events.ts";
import { bundledPlugins } from "./bundled.ts";
import { locatePackage, scanPluginsDir } from "./discovery.ts";
import type { Installer, InstallResult } from "./installer.ts";
import { parseEntry } from "./load-all.ts";
import { assertPackageName } from "./package-name.ts";
import type { PluginSettingsStore, PluginStatus } from "./types.ts";

export interface PluginLifecycle {
  /**
   * Installs from the registry and lists the plugin in `plugins`. Installing code is not consent
   * to run it: a newly listed plugin stays in `disabled_plugins` unless `enable` is true.
   */
  install(request: {
    name: string;
    version?: string;
    enable?: boolean;
  }): Promise<{ plugin: PluginStatus; created: boolean }>;
  /** Installs a package tarball (a file or `npm pack` output) like `install`, named by its package.json. */
  installTarball(request: {
    bytes: Uint8Array<ArrayBuffer>;
    enable?: boolean;
  }): Promise<{ plugin: PluginStatus; created: boolean }>;
  /** Unlists the plugin and deletes its files; its storage is kept unless `purge`. */
  uninstall(request: { specifier: string; purge?: boolean }): Promise<{ name: string; purged: number }>;
  /**
   * Switches a plugin on (listing it if needed) or off (`disabled_plugins`), then reloads. `name`
   * picks one package where several share `slug`; without it a shared slug is refused.
   */
  setEnabled(slug: string, enabled: boolean, name?: string): Promise<PluginStatus>;
}

/**
 * The one package `slug` (and `name`, when given) designates. Slugs are not unique across
 * packages (`@a/b_c`, `a-b-c`), so a shared slug without a name is an error, never a guess.
 */
export function pickBySlug(all: readonly PluginStatus[], slug: string, name?: string): PluginStatus {
  const matches = all.filter((status) => status.slug === slug);
  if (name !== undefined) {
    const exact = matches.find((status) => status.name === name);
    if (!exact) throw notFound(`No listed or installed plugin named "${name}" has the slug "${slug}".`);
    return exact;
  }
  const names = [...new Set(matches.map((status) => status.name))];
  const [first] = matches;
  if (!first) throw notFound(`No listed or installed plugin has the slug "${slug}".`);
  if (names.length > 1) {
    throw new AppError(
      "ambiguous_slug",
      `Plugins ${names.map((item) => `"${item}"`).join(", ")} share the slug "${slug}": add ?name=<package name> to say which.`,
      { details: { slug, names } },
    );
  }
  return first;
}

export function createLifecycle(deps: {
  pluginsDir: string;
  settings: PluginSettingsStore;
  storage: PluginStorageRepo;
  events: EventBus;
  installer: Installer | undefined;
  reload(): Promise<void>;
  /**
   * Settles when plugins reflect a change just made to the settings: the reload that change set
   * off, not one more after it (which would run every setup() twice).
   */
  reloaded(): Promise<void>;
  list(): Promise<PluginStatus[]>;
}): PluginLifecycle {
  const { settings, events } = deps;
  const listedNames = () => settings.entries().map((entry) => parseEntry(entry).name);

  async function statusOf(name: string): Promise<PluginStatus> {
    const status = (await deps.list()).find((item) => item.name === name);
    if (!status) throw notFound(`Plugin "${name}" is neither listed nor installed.`);
    return status;
  }

  /** Lists a freshly installed package (switched off unless `enable`) and loads the new set. */
  async function adopt(result: InstallResult, enable: boolean) {
    const { name } = result;
    const wasListed = listedNames().includes(name);
    const disabled = new Set(settings.disabled());
    const wasEnabled = wasListed && !disabled.has(name);
    if (enable) disabled.delete(name);
    else if (!wasEnabled) disabled.add(name);
    let changed = false;
    // disabled_plugins first: listing it must never load it, not even for one reload.
    if (disabled.has(name) !== settings.disabled().includes(name)) {
      settings.setDisabled([...disabled]);
      changed = true;
    }
    if (!wasListed) {
      settings.setEntries([...settings.entries(), name]);
      changed = true;
    }
    // The files were swapped before the settings changed, so that change's reload loads them;
    // new code under unchanged settings needs a reload of its own.
    await (changed ? deps.reloaded() : deps.reload());
    const plugin = await statusOf(name);
    events.publish("plugins.installed", { name, version: result.version, enabled: plugin.enabled });
    return { plugin, created: !result.replaced };
  }

  const installer = () => {
    if (!deps.installer) throw new AppError("installer_unavailable", "This server cannot install plugins.");
    return deps.installer;
  };

  return {
    async install({ name, version, enable = false }) {
      assertPackageName(name);
      // A first-party plugin comes from the copy svc carries, unless another version is asked for.
      const bundled = bundledPlugins[name];
      if (bundled && (version === undefined || version === bundled.version)) {
        return adopt(await installer().installTarball(await bundled.tarball()), enable);
      }
      return adopt(await installer().install(name, version), enable);
    },

    async installTarball({ bytes, enable = false }) {
      return adopt(await installer().installTarball(bytes), enable);
    },

    async uninstall({ specifier, purge = false }) {
      const folder = locatePackage(await scanPluginsDir(deps.pluginsDir), deps.pluginsDir, specifier);
      const wasListed = listedNames().includes(specifier);
      if (!wasListed && !folder) throw notFound(`Plugin "${specifier}" is neither listed nor installed.`);
      // Files first: the reload the settings change sets off must not find them.
      if (folder) {
        if (deps.installer) await deps.installer.remove(specifier, folder.dir);
        else await rm(folder.dir, { recursive: true, force: true });
      }
      const purged = purge ? deps.storage.purge(specifier) : 0;
      let changed = false;
      if (wasListed) {
        settings.setEntries(settings.entries().filter((entry) => parseEntry(entry).name !== specifier));
        changed = true;
      }
      if (settings.disabled().includes(specifier)) {
        settings.setDisabled(settings.disabled().filter((name) => name !== specifier));
        changed = true;
      }
      await (changed ? deps.reloaded() : deps.reload());
      events.publish("plugins.uninstalled", { name: specifier, purged: purge });
      return { name: specifier, purged };
    },

    async setEnabled(slug, enabled, wanted) {
      const target = pickBySlug(await deps.list(), slug, wanted);
      const { name } = target;
      const disabled = settings.disabled();
      let changed = false;
      if (enabled) {
        if (!target.listed) assertPackageName(name);
        if (disabled.includes(name)) {
          settings.setDisabled(disabled.filter((item) => item !== name));
          changed = true;
        }
        if (!target.listed) {
          settings.setEntries([...settings.entries(), name]);
          changed = true;
        }
      } else if (target.listed && !disabled.includes(name)) {
        settings.setDisabled([...disabled, name]);
        changed = true;
      }
      await (changed ? deps.reloaded() : deps.reload());
      return statusOf(name);
    },
  };
}
