import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { readManifest } from "./manifest.ts";
import { extraServerModules } from "./modules.ts";
import { packageNameProblem } from "./package-name.ts";
import { pluginSlug } from "./slug.ts";

export interface LinkResult {
  name: string;
  devName: string;
  dir: string;
  /** "copy" where symlinks are unavailable: re-run link after every build. */
  mode: "symlink" | "copy";
  /** Server modules in dist/ besides the entry (see extraServerModules): reload misses their changes. */
  extraModules: string[];
}

export interface LinkOptions {
  sourceDir: string;
  pluginsDir: string;
  /** Run the package's build script first (default true when it has one). */
  build?: boolean;
  /** Copy dist/ even where a symlink would work (tests; file systems without links). */
  forceCopy?: boolean;
  /** Runs `scripts.build`; the default uses the package manager whose lockfile is present. */
  runBuild?: (dir: string) => Promise<void>;
}

/** The package manager a project uses, from its lockfile. */
export function packageManagerOf(dir: string): string {
  if (existsSync(join(dir, "bun.lock")) || existsSync(join(dir, "bun.lockb"))) return "bun";
  if (existsSync(join(dir, "pnpm-lock.yaml"))) return "pnpm";
  if (existsSync(join(dir, "yarn.lock"))) return "yarn";
  return "npm";
}

async function defaultBuild(dir: string): Promise<void> {
  const manager = packageManagerOf(dir);
  const command = Bun.which(manager);
  if (!command)
    throw new Error(`${manager} is not on PATH: build the plugin yourself, then run link with --no-build`);
  const proc = Bun.spawn([command, "run", "build"], { cwd: dir, stdout: "inherit", stderr: "inherit" });
  const code = await proc.exited;
  if (code !== 0) throw new Error(`"${manager} run build" failed with exit code ${code}`);
}

async function readPackageJson(dir: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
}

/** Development copies are named `<name>-dev`; such a name is only ever made by `link`. */
export function isDevLinkName(name: string): boolean {
  return name.endsWith("-dev");
}

/** Where the development copy of the package in `sourceDir` lives. */
export async function devCopyOf(sourceDir: string, pluginsDir: string) {
  const manifest = await readManifest(sourceDir);
  const devName = `${manifest.name}-dev`;
  const problem = packageNameProblem(devName);
  if (problem) throw new Error(`the development copy's name "${devName}" is not usable: ${problem}`);
  return { manifest, devName, dir: join(pluginsDir, pluginSlug(devName)) };
}

/**
 * `svc plugins link`: builds the plugin, then makes `<slug>-dev` in the plugins directory, a
 * package named `<name>-dev` whose dist/ is a link to the plugin's own (a copy where links
 * cannot be made). It sits beside a registry-installed copy of the same plugin.
 */
export async function linkPlugin(options: LinkOptions): Promise<LinkResult> {
  const sourceDir = resolve(options.sourceDir);
  const { manifest, devName, dir } = await devCopyOf(sourceDir, options.pluginsDir);
  const raw = await readPackageJson(sourceDir);
  const scripts = raw.scripts as Record<string, unknown> | undefined;
  if (options.build !== false && typeof scripts?.build === "string") {
    await (options.runBuild ?? defaultBuild)(sourceDir);
  }
  if (!manifest.main.startsWith("dist/"))
    throw new Error(`main (${manifest.main}) must be inside dist/ to be linked`);
  const dist = join(sourceDir, "dist");
  if (!(await stat(join(sourceDir, manifest.main)).catch(() => undefined))?.isFile()) {
    throw new Error(`${manifest.main} does not exist: build the plugin first`);
  }
  await mkdir(join(options.pluginsDir, ".staging"), { recursive: true });
  const staging = await mkdtemp(join(options.pluginsDir, ".staging", "link-"));
  try {
    const copy = join(staging, "package");
    await mkdir(copy);
    const pkg = {
      name: devName,
      version: manifest.version,
      description: `[DEV] ${manifest.description ?? manifest.name}`,
      type: "module",
      main: manifest.main,
      svc: raw.svc,
      svcDev: { source: sourceDir },
    };
    await writeFile(join(copy, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
    let mode: LinkResult["mode"] = "symlink";
    try {
      if (options.forceCopy) throw new Error("copy requested");
      // A junction needs no privilege on Windows; elsewhere the type is ignored.
      await symlink(dist, join(copy, "dist"), "junction");
    } catch {
      mode = "copy";
      await cp(dist, join(copy, "dist"), { recursive: true, dereference: true });
    }
    // The previous copy moves aside first, so the swap leaves no half-written folder behind.
    if (await stat(dir).catch(() => undefined)) await rename(dir, join(staging, "previous"));
    await rename(copy, dir);
    return {
      name: manifest.name,
      devName,
      dir,
      mode,
      extraModules: await extraServerModules(sourceDir, manifest.main),
    };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** `svc plugins unlink`: removes the development copy; false when there was none. */
export async function unlinkPlugin(options: { sourceDir: string; pluginsDir: string }) {
  const { devName, dir } = await devCopyOf(resolve(options.sourceDir), options.pluginsDir);
  const existed = (await stat(dir).catch(() => undefined)) !== undefined;
  // rm does not follow the dist link: the plugin's own build stays.
  await rm(dir, { recursive: true, force: true });
  return { devName, dir, removed: existed };
}
