import { basename } from "node:path";
import type { PluginStorageRepo } from "../db/plugin-storage-repo.ts";
import { reasonOf } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { isDevLinkName } from "./dev-link.ts";
import { locatePackage, type PackageFolder, scanPluginsDir } from "./discovery.ts";
import type { Installer } from "./installer.ts";
import { loadPlugin, PluginLoadError } from "./loader.ts";
import type { PluginManifest } from "./manifest.ts";
import { extraModulesWarning, extraServerModules } from "./modules.ts";
import { packageNameProblem } from "./package-name.ts";
import { pluginSlug } from "./slug.ts";
import { createPluginStorage, type StorageLimits } from "./storage.ts";
import {
  type LoadedPlugin,
  type PluginEntry,
  type PluginFailure,
  type PluginPageView,
  type PluginStage,
  type PluginStatus,
  type PluginTimeouts,
  pluginFunctions,
  pluginHooks,
} from "./types.ts";

export interface LoadAllDeps {
  pluginsDir: string;
  storage: PluginStorageRepo;
  storageLimits: StorageLimits;
  logger: Logger;
  timeouts: PluginTimeouts;
  installer: Installer | undefined;
  /** svc's settings as plugins may read them: as text, secrets never. */
  readSetting(key: string): string | undefined;
}

export interface LoadResult {
  loaded: LoadedPlugin[];
  statuses: PluginStatus[];
}

export function parseEntry(entry: PluginEntry): { name: string; options: Readonly<Record<string, unknown>> } {
  return typeof entry === "string"
    ? { name: entry, options: {} }
    : { name: entry[0], options: entry[1] ?? {} };
}

export function pageViews(slug: string, manifest: PluginManifest | null): PluginPageView[] {
  return (manifest?.pages ?? []).map((page) => ({
    ...page,
    url: `/api/plugins/${slug}/ui/${page.entry.slice("dist/ui/".length)}`,
  }));
}

/** The listing of a package that is not running (yet): everything but the load outcome. */
export function describe(
  name: string,
  folder: PackageFolder | undefined,
  facts: { listed: boolean; enabled: boolean; options: Readonly<Record<string, unknown>> },
): PluginStatus {
  const manifest = folder?.manifest ?? null;
  const slug = pluginSlug(name);
  const dev = manifest?.devSource != null;
  return {
    name,
    specifier: name,
    slug,
    version: manifest?.version ?? null,
    description: manifest?.description ?? null,
    displayName: manifest?.displayName ?? null,
    icon: manifest?.icon ?? null,
    listed: facts.listed,
    enabled: facts.enabled,
    installed: folder !== undefined,
    loaded: false,
    dev,
    label: dev ? "[DEV]" : null,
    options: facts.options,
    pages: pageViews(slug, manifest),
    hooks: [],
    ignoredHooks: [],
    routes: false,
    error: null,
  };
}

/** Folders on disk that the `plugins` setting does not list: installed but switched off. */
export function unlisted(folders: readonly PackageFolder[], listed: ReadonlySet<string>): PluginStatus[] {
  return folders
    .filter((folder) => !listed.has(folder.manifest?.name ?? basename(folder.dir)))
    .map((folder) => {
      const status = describe(folder.manifest?.name ?? basename(folder.dir), folder, {
        listed: false,
        enabled: false,
        options: {},
      });
      return folder.problem ? { ...status, error: { stage: "manifest", message: folder.problem } } : status;
    });
}

/**
 * Loads every enabled entry of `plugins`, in order. A plugin that fails at any step is reported
 * in its status and the log, and the others load regardless.
 */
export async function loadAll(
  deps: LoadAllDeps,
  entries: readonly PluginEntry[],
  disabled: ReadonlySet<string>,
  generation: number,
): Promise<LoadResult> {
  let folders = await scanPluginsDir(deps.pluginsDir);
  const loaded: LoadedPlugin[] = [];
  const statuses: PluginStatus[] = [];
  const seen = new Set<string>();
  const slugOwners = new Map<string, string>();

  const fail = (status: PluginStatus, stage: PluginStage, message: string): PluginStatus => {
    const error: PluginFailure = { stage, message };
    deps.logger.error(`plugin "${status.name}" failed in ${stage}: ${message}`, {
      plugin: status.name,
      hook: stage,
    });
    return { ...status, error };
  };

  for (const entry of entries) {
    const { name, options } = parseEntry(entry);
    const enabled = !disabled.has(name);
    let folder = locatePackage(folders, deps.pluginsDir, name);
    let status = describe(name, folder, { listed: true, enabled, options });
    const nameProblem = packageNameProblem(name);
    if (nameProblem) {
      statuses.push(fail(status, "resolve", nameProblem));
      continue;
    }
    if (seen.has(name)) {
      statuses.push(fail(status, "resolve", "listed more than once in the plugins setting"));
      continue;
    }
    seen.add(name);
    if (!enabled) {
      statuses.push(folder?.problem ? fail(status, "manifest", folder.problem) : status);
      continue;
    }
    // A missing `-dev` package is a development link that was removed: fetching a package of
    // that name from the registry would run whatever someone published under it.
    if (!folder && deps.installer && !isDevLinkName(name)) {
      try {
        await deps.installer.install(name);
        folders = await scanPluginsDir(deps.pluginsDir);
        folder = locatePackage(folders, deps.pluginsDir, name);
        status = describe(name, folder, { listed: true, enabled, options });
      } catch (error) {
        statuses.push(fail(status, "install", `not installed, and installing it failed: ${reasonOf(error)}`));
        continue;
      }
    }
    if (!folder) {
      const message = isDevLinkName(name)
        ? `not linked: no folder in the plugins directory holds "${name}"; run "svc plugins link" in the plugin's folder (a -dev name is never fetched from the registry)`
        : `not installed: no folder in the plugins directory holds "${name}"`;
      statuses.push(fail(status, "resolve", message));
      continue;
    }
    if (!folder.manifest) {
      statuses.push(fail(status, "manifest", folder.problem ?? "unreadable package.json"));
      continue;
    }
    const owner = slugOwners.get(status.slug);
    if (owner) {
      statuses.push(
        fail(status, "manifest", `its slug "${status.slug}" is already used by plugin "${owner}"`),
      );
      continue;
    }
    slugOwners.set(status.slug, name);
    try {
      const plugin = await loadPlugin({
        dir: folder.dir,
        manifest: folder.manifest,
        slug: status.slug,
        options,
        generation,
        pluginsDir: deps.pluginsDir,
        storage: createPluginStorage(deps.storage, name, deps.storageLimits),
        logger: deps.logger,
        timeouts: deps.timeouts,
        readSetting: deps.readSetting,
      });
      if (plugin.plugin.ignored.length > 0) {
        deps.logger.warn(
          `plugin "${name}" defines ${plugin.plugin.ignored.join(", ")}, which svc does not run (it calls middleware, ${pluginFunctions.join(", ")})`,
          { plugin: name },
        );
      }
      const extra = await extraServerModules(folder.dir, folder.manifest.main);
      if (extra.length > 0) deps.logger.warn(extraModulesWarning(name, extra), { plugin: name });
      loaded.push(plugin);
      statuses.push({
        ...status,
        loaded: true,
        hooks: pluginHooks.filter((hook) => plugin.plugin[hook] !== undefined),
        ignoredHooks: plugin.plugin.ignored,
        routes: plugin.plugin.middleware.length > 0,
      });
    } catch (error) {
      const stage = error instanceof PluginLoadError ? error.stage : "import";
      statuses.push(fail(status, stage, reasonOf(error)));
    }
  }
  return { loaded, statuses };
}
