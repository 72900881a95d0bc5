import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { ManifestError, type PluginManifest, readManifest } from "./manifest.ts";
import { pluginSlug } from "./slug.ts";

/** A folder in the plugins directory and what its package.json says. */
export interface PackageFolder {
  dir: string;
  manifest: PluginManifest | null;
  /** Why the manifest could not be used. */
  problem: string | null;
}

// Dot folders are the host's own (.staging); node_modules is never a plugin.
const isCandidate = (name: string) => !name.startsWith(".") && name !== "node_modules";

/** Every plugin-like folder in `pluginsDir`; an absent directory has none. */
export async function scanPluginsDir(pluginsDir: string): Promise<PackageFolder[]> {
  let names: string[];
  try {
    const entries = await readdir(pluginsDir, { withFileTypes: true });
    names = entries
      .filter((entry) => entry.isDirectory() && isCandidate(entry.name))
      .map((entry) => entry.name);
  } catch {
    return [];
  }
  names.sort();
  return Promise.all(names.map((name) => readFolder(join(pluginsDir, name))));
}

export async function readFolder(dir: string): Promise<PackageFolder> {
  try {
    return { dir, manifest: await readManifest(dir), problem: null };
  } catch (error) {
    const problem = error instanceof ManifestError ? error.message : String(error);
    return { dir, manifest: null, problem };
  }
}

/**
 * The folder holding package `name`: `<slug>` first (where install and link put it), else any
 * folder whose package.json carries that name. A `<slug>` folder with a broken manifest is
 * returned as is, so its problem is reported against the plugin.
 */
export function locatePackage(
  folders: readonly PackageFolder[],
  pluginsDir: string,
  name: string,
): PackageFolder | undefined {
  const home = join(pluginsDir, pluginSlug(name));
  const atHome = folders.find((folder) => folder.dir === home);
  if (atHome && (atHome.manifest === null || atHome.manifest.name === name)) return atHome;
  return folders.find((folder) => folder.manifest?.name === name);
}
