import { lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, normalize, resolve, sep } from "node:path";
import { parseArgs } from "node:util";
import { pluginsDirOf } from "../config.ts";
import { reasonOf } from "../errors.ts";
import { linkPlugin, unlinkPlugin } from "../plugins/dev-link.ts";
import { extraModulesWarning } from "../plugins/modules.ts";
import { packPackage } from "../plugins/pack.ts";
import { scaffoldPlugin } from "../plugins/scaffold.ts";
import type { PluginStatus } from "../plugins/types.ts";
import { dialHost } from "./healthcheck.ts";

type Env = Record<string, string | undefined>;

export interface PluginsCliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  cwd: string;
}

const usage =
  "usage: svc plugins new NAME [DIR] | link [DIR] | unlink [DIR] | list | install NAME | uninstall NAME | reload | enable NAME | disable NAME";

/** The plugins folder the server uses (config.ts's rule), when the environment names one. */
export function pluginsDirFrom(env: Env): string | undefined {
  const dbPath = env.SVC_DB_PATH?.trim();
  if (!env.SVC_PLUGINS_DIR?.trim() && (!dbPath || dbPath === ":memory:")) return undefined;
  return pluginsDirOf(dbPath ?? "", env.SVC_PLUGINS_DIR);
}

/** A running server: its URL and the key to send it (--key or SVC_KEY; none for this machine under keys). */
interface Server {
  url: string;
  key: string | undefined;
  toString(): string;
}

function serverOf(env: Env, flag: string | undefined, key: string | undefined): Server {
  const given = flag ?? env.SVC_URL;
  const url = given
    ? given.replace(/\/+$/, "")
    : `http://${dialHost(env.HOST ?? "127.0.0.1")}:${env.PORT ?? "4649"}`;
  return { url, key: key ?? (env.SVC_KEY?.trim() || undefined), toString: () => url };
}

/**
 * The file or folder `target` names when it is a path (`./plugin.tgz`, `../shout`, `/abs`), not a
 * package name; undefined for a package name.
 */
function localPackage(cwd: string, target: string): { path: string; folder: boolean } | undefined {
  if (!/^(\.{1,2}[\\/]|[\\/]|[A-Za-z]:[\\/])/.test(target) && !/\.(tgz|tar\.gz)$/.test(target))
    return undefined;
  const path = resolve(cwd, target);
  try {
    return { path, folder: statSync(path).isDirectory() };
  } catch {
    throw new CliError(`there is no file or folder at ${path}`);
  }
}

/**
 * The bytes to send: a tarball as it is, or a plugin folder packed as \`npm pack\` would pack it
 * (package.json and the paths its "files" names, default dist/; links are left out).
 */
async function tarballOf(source: { path: string; folder: boolean }): Promise<Uint8Array<ArrayBuffer>> {
  if (!source.folder) return new Uint8Array(readFileSync(source.path));
  const manifest = JSON.parse(readFileSync(join(source.path, "package.json"), "utf8")) as { files?: unknown };
  const listed = Array.isArray(manifest.files)
    ? manifest.files.filter((f) => typeof f === "string")
    : ["dist"];
  const files: [string, Uint8Array][] = [];
  const add = (relative: string) => {
    const full = join(source.path, relative);
    const info = lstatSync(full, { throwIfNoEntry: false });
    if (!info || info.isSymbolicLink()) return;
    if (info.isDirectory()) {
      for (const name of readdirSync(full).sort()) add(join(relative, name));
    } else if (info.isFile()) {
      files.push([relative.split(sep).join("/"), readFileSync(full)]);
    }
  };
  add("package.json");
  for (const item of listed) add(normalize(item).replace(/^(\.\.[\\/])+/, ""));
  return packPackage(files);
}

class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

async function call(
  base: Server,
  method: string,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  let response: Response;
  const tarball = body instanceof Uint8Array;
  try {
    response = await fetch(`${base.url}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { "content-type": tarball ? "application/gzip" : "application/json" }),
        ...(base.key ? { authorization: `Bearer ${base.key}` } : {}),
      },
      body:
        body === undefined ? undefined : tarball ? (body as Uint8Array<ArrayBuffer>) : JSON.stringify(body),
      signal: AbortSignal.timeout(120_000),
    });
  } catch {
    throw new CliError(`no svc server answered at ${base}: start it, or point SVC_URL (or --url) at it`);
  }
  const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) {
    const error = json.error as { message?: string } | undefined;
    throw new CliError(error?.message ?? `the server answered HTTP ${response.status}`);
  }
  return json;
}

function describe(plugin: PluginStatus): string {
  const state = plugin.error
    ? `failed in ${plugin.error.stage}: ${plugin.error.message}`
    : plugin.loaded
      ? "enabled"
      : plugin.enabled
        ? "enabled, not loaded"
        : plugin.listed
          ? "disabled"
          : "installed, not listed";
  const label = plugin.label ? ` ${plugin.label}` : "";
  return `${plugin.name}@${plugin.version ?? "?"}${label}  /api/plugins/${plugin.slug}  ${state}\n`;
}

/**
 * The package `target` means: the one with that exact name, else the only one with that slug.
 * Slugs can be shared (`@a/b_c`, `a-b-c`), so a shared slug is refused rather than guessed.
 */
async function resolvePlugin(base: Server, target: string): Promise<PluginStatus> {
  const { items } = (await call(base, "GET", "/api/plugins")) as { items: PluginStatus[] };
  const exact = items.find((item) => item.name === target);
  if (exact) return exact;
  const bySlug = items.filter((item) => item.slug === target);
  const names = [...new Set(bySlug.map((item) => item.name))];
  if (names.length > 1)
    throw new CliError(`"${target}" is the slug of ${names.join(", ")}: give the package name instead`);
  const [only] = bySlug;
  if (!only) throw new CliError(`no listed or installed plugin is named "${target}": see svc plugins list`);
  return only;
}

/** Exit status of link/unlink when the files changed but no server picked the change up. */
const notApplied = 3;

/**
 * After link/unlink: a running server picks the change up now rather than at its next reload.
 * False (and a line on stderr saying what to do) when no server at `base` reloaded.
 */
async function reloadServer(base: Server, io: PluginsCliIo): Promise<boolean> {
  try {
    await call(base, "POST", "/api/plugins/reload");
    io.stdout.write(`the server at ${base} reloaded its plugins\n`);
    return true;
  } catch (error) {
    io.stderr.write(
      `svc: no server reloaded (${reasonOf(error)}); the change applies at svc's next reload or start. ` +
        "Point SVC_URL (or --url) at the server, or run svc plugins reload.\n",
    );
    return false;
  }
}

/** After unlink: the running server forgets the development copy (and reloads); false when none answered. */
async function unlistQuietly(base: Server, devName: string, io: PluginsCliIo): Promise<boolean> {
  try {
    await call(base, "POST", "/api/plugins/uninstall", { specifier: devName });
    io.stdout.write(`the server at ${base} unlisted ${devName} and reloaded its plugins\n`);
    return true;
  } catch {
    // No server, or it never listed the copy (404): the reload that follows says which.
    return false;
  }
}

async function run(args: string[], env: Env, io: PluginsCliIo): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    options: {
      copy: { type: "boolean" },
      "no-build": { type: "boolean" },
      version: { type: "string", short: "v" },
      enable: { type: "boolean" },
      purge: { type: "boolean" },
      url: { type: "string" },
      key: { type: "string" },
    },
    allowPositionals: true,
  });
  const [command, target] = positionals;
  const base = serverOf(env, values.url, values.key);
  const needTarget = () => {
    if (!target) throw new CliError(`${usage}\n(${command} needs a plugin name)`, 2);
    return target;
  };
  switch (command) {
    case "new": {
      const name = needTarget();
      const dir = resolve(io.cwd, positionals[2] ?? name.replace(/^@[^/]+\//, ""));
      scaffoldPlugin(name, dir);
      io.stdout.write(
        `created ${name} in ${dir}\nnext: cd ${dir} && bun install && bun run build && svc plugins link\n`,
      );
      return 0;
    }
    case "link":
    case "unlink": {
      const pluginsDir = pluginsDirFrom(env);
      if (!pluginsDir)
        throw new CliError("set SVC_PLUGINS_DIR (or SVC_DB_PATH) to the server's plugins folder");
      const sourceDir = resolve(io.cwd, target ?? ".");
      if (command === "unlink") {
        const result = await unlinkPlugin({ sourceDir, pluginsDir });
        io.stdout.write(
          result.removed
            ? `removed ${result.devName} (${result.dir})\n`
            : `${result.devName} was not linked\n`,
        );
        // The server also unlists it, so the plugins setting does not name a package that is gone.
        if (await unlistQuietly(base, result.devName, io)) return 0;
      } else {
        const result = await linkPlugin({
          sourceDir,
          pluginsDir,
          build: !values["no-build"],
          forceCopy: values.copy,
        });
        io.stdout.write(`linked ${result.name} as ${result.devName} [DEV] in ${result.dir}\n`);
        if (result.mode === "copy") {
          io.stdout.write(
            "symlinks are unavailable here, so dist/ was copied: run link again after every build\n",
          );
        }
        if (result.extraModules.length > 0)
          io.stderr.write(`svc: warning: ${extraModulesWarning(result.name, result.extraModules)}\n`);
        io.stdout.write(`turn it on with: svc plugins enable ${result.devName}\n`);
      }
      return (await reloadServer(base, io)) ? 0 : notApplied;
    }
    case "list": {
      const { items } = (await call(base, "GET", "/api/plugins")) as { items: PluginStatus[] };
      if (items.length === 0) io.stdout.write("no plugins installed\n");
      for (const item of items) io.stdout.write(describe(item));
      return 0;
    }
    case "install": {
      const source = localPackage(io.cwd, needTarget());
      const { plugin } = (
        source
          ? await call(
              base,
              "POST",
              `/api/plugins/install?enable=${values.enable === true}`,
              await tarballOf(source),
            )
          : await call(base, "POST", "/api/plugins/install", {
              npmName: needTarget(),
              version: values.version,
              enable: values.enable === true,
            })
      ) as { plugin: PluginStatus };
      io.stdout.write(describe(plugin));
      if (!plugin.enabled) io.stdout.write(`installed but off: svc plugins enable ${plugin.name}\n`);
      return 0;
    }
    case "uninstall": {
      await call(base, "POST", "/api/plugins/uninstall", {
        specifier: needTarget(),
        purge: values.purge === true,
      });
      io.stdout.write(`uninstalled ${target}${values.purge ? " and deleted its data" : ""}\n`);
      return 0;
    }
    case "enable":
    case "disable": {
      const { slug, name } = await resolvePlugin(base, needTarget());
      const path = `/api/plugins/${slug}/${command}?name=${encodeURIComponent(name)}`;
      const { plugin } = (await call(base, "POST", path)) as { plugin: PluginStatus };
      io.stdout.write(describe(plugin));
      return 0;
    }
    case "reload": {
      const { items } = (await call(base, "POST", "/api/plugins/reload")) as { items: PluginStatus[] };
      for (const item of items) io.stdout.write(describe(item));
      const failed = items.filter((item) => item.error);
      if (failed.length === 0) return 0;
      throw new CliError(
        `${failed.length} plugin(s) failed to load: ${failed.map((item) => item.name).join(", ")}`,
      );
    }
    default:
      throw new CliError(usage, 2);
  }
}

/** `svc plugins …`: link/unlink work on the plugins folder; the rest ask the running server. */
export async function runPluginsCommand(
  args: string[],
  env: Env,
  io: PluginsCliIo = { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() },
): Promise<number> {
  try {
    return await run(args, env, io);
  } catch (error) {
    io.stderr.write(`svc: ${reasonOf(error)}\n`);
    return error instanceof CliError ? error.exitCode : 1;
  }
}
