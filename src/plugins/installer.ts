import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { AppError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { readFolder } from "./discovery.ts";
import { ManifestError, type PluginManifest, readManifest } from "./manifest.ts";
import { assertPackageName } from "./package-name.ts";
import type { RegistryClient } from "./registry-client.ts";
import { pluginSlug } from "./slug.ts";
import { checkPackage } from "./staged-package.ts";
import { defaultExtractLimits, type ExtractLimits, extractPackage } from "./tar-extract.ts";

export interface InstallResult {
  name: string;
  version: string;
  dir: string;
  /** An older copy was in place and has been swapped out. */
  replaced: boolean;
}

export interface Installer {
  readonly registryUrl: string;
  /** Downloads, verifies, extracts and moves a package into place; `requested` is a version, range or tag. */
  install(name: string, requested?: string): Promise<InstallResult>;
  /**
   * Installs a package tarball (`npm pack` output) given as bytes, through the same checks and the
   * same atomic swap as a registry install; its package.json names the package.
   */
  installTarball(bytes: Uint8Array<ArrayBuffer>): Promise<InstallResult>;
  /** Removes a package folder (atomically out of sight first); false when there was none. */
  remove(name: string, dir: string): Promise<boolean>;
  /** Finishes or rolls back whatever a crash interrupted; run before loading. */
  recover(): Promise<void>;
}

/** Test seams for crash and failure injection between the install steps. */
export interface InstallerFaults {
  afterStage?(stagingDir: string): void | Promise<void>;
  afterMoveAside?(stagingDir: string): void | Promise<void>;
}

/** The largest tarball a file install takes, as for the registry's downloads. */
const maxTarballBytes = 10 * 1024 * 1024;

async function readStagedManifest(dir: string): Promise<PluginManifest> {
  try {
    return await readManifest(dir);
  } catch (error) {
    const message = error instanceof ManifestError ? error.message : String(error);
    throw new AppError("invalid_manifest", `The package is not an installable svc plugin: ${message}.`);
  }
}

const versionRequest = /^[0-9A-Za-z.^~<>=|*+ -]{1,100}$/;

export function createInstaller(options: {
  pluginsDir: string;
  registry: RegistryClient;
  logger: Logger;
  limits?: Partial<ExtractLimits>;
  faults?: InstallerFaults;
}): Installer {
  const { pluginsDir, registry, logger, faults = {} } = options;
  const limits = { ...defaultExtractLimits, ...options.limits };
  const stagingRoot = join(pluginsDir, ".staging");
  const busy = new Set<string>();

  // One operation per slug at a time: two names that share a slug share a folder too.
  async function exclusive<T>(name: string, work: () => Promise<T>): Promise<T> {
    const slug = pluginSlug(name);
    if (busy.has(slug)) {
      throw new AppError(
        "install_in_progress",
        `"${name}" is being installed or removed right now; try again when it finishes.`,
      );
    }
    busy.add(slug);
    try {
      return await work();
    } finally {
      busy.delete(slug);
    }
  }

  async function newStagingDir(kind: string): Promise<string> {
    await mkdir(stagingRoot, { recursive: true });
    return mkdtemp(join(stagingRoot, `${kind}-`));
  }

  async function assertReplaceable(target: string, name: string): Promise<boolean> {
    if (!(await exists(target))) return false;
    const folder = await readFolder(target);
    if (folder.manifest?.name === name) return true;
    throw new AppError(
      "slug_taken",
      `The folder ${pluginSlug(name)} in the plugins directory holds ${folder.manifest ? `"${folder.manifest.name}"` : "something that is not a plugin"}, whose slug is the same as "${name}"'s.`,
    );
  }

  async function install(name: string, requested?: string): Promise<InstallResult> {
    assertPackageName(name);
    if (requested !== undefined && !versionRequest.test(requested)) {
      throw new AppError(
        "invalid_version",
        "version must be a version, a range such as ^1.2.0, or a dist-tag.",
      );
    }
    return exclusive(name, async () => {
      const resolved = await registry.resolve(name, requested);
      const bytes = await registry.download(resolved);
      const staging = await newStagingDir("install");
      const staged = join(staging, "package");
      await extractPackage(bytes, staged, limits).catch(async (error: unknown) => {
        await rm(staging, { recursive: true, force: true });
        throw error;
      });
      return place(staging, resolved);
    });
  }

  async function installTarball(bytes: Uint8Array<ArrayBuffer>): Promise<InstallResult> {
    if (bytes.length > maxTarballBytes) {
      throw new AppError("package_too_large", `A plugin tarball may be at most ${maxTarballBytes} bytes.`);
    }
    const staging = await newStagingDir("file");
    const staged = join(staging, "package");
    let manifest: PluginManifest;
    try {
      await extractPackage(bytes, staged, limits);
      manifest = await readStagedManifest(staged);
      assertPackageName(manifest.name);
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      throw error;
    }
    return exclusive(manifest.name, () => place(staging, manifest));
  }

  /** Checks the package extracted in `staging` and swaps it into place; always clears `staging`. */
  async function place(staging: string, expected: { name: string; version: string }): Promise<InstallResult> {
    const { name } = expected;
    const target = join(pluginsDir, pluginSlug(name));
    const staged = join(staging, "package");
    try {
      await checkPackage(staged, expected);
      const replaced = await assertReplaceable(target, name);
      // Written first, so recovery after a crash knows where a moved-aside copy belongs.
      await writeFile(join(staging, "target"), pluginSlug(name));
      await faults.afterStage?.(staging);
      if (replaced) {
        await rename(target, join(staging, "previous"));
        await faults.afterMoveAside?.(staging);
      }
      await rename(staged, target);
      logger.info("plugin installed", { plugin: name, version: expected.version, replaced });
      return { name, version: expected.version, dir: target, replaced };
    } catch (error) {
      await restorePrevious(staging);
      throw error;
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  async function restorePrevious(staging: string): Promise<void> {
    const previous = join(staging, "previous");
    const slug = await readFile(join(staging, "target"), "utf8").catch(() => "");
    if (!slug || !(await exists(previous))) return;
    const target = join(pluginsDir, slug);
    if (!(await exists(target))) await rename(previous, target);
  }

  return {
    registryUrl: registry.url,
    install,
    installTarball,
    remove: (name, dir) =>
      exclusive(name, async () => {
        if (!(await exists(dir))) return false;
        const staging = await newStagingDir("remove");
        try {
          await rename(dir, join(staging, "removed"));
        } finally {
          await rm(staging, { recursive: true, force: true });
        }
        return true;
      }),
    async recover() {
      const leftovers = await readdir(stagingRoot).catch(() => [] as string[]);
      for (const leftover of leftovers) {
        const staging = join(stagingRoot, leftover);
        try {
          await restorePrevious(staging);
        } catch (error) {
          logger.warn("could not restore a plugin folder after an interrupted install", { staging, error });
        }
        await rm(staging, { recursive: true, force: true });
      }
    },
  };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
