import { chownSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import type { EngineId } from "../dictation/engines/ids.ts";
import { downloadModel, presetTarget } from "../dictation/engines/store/download.ts";
import { describeModels } from "../dictation/engines/store/overview.ts";
import { findPreset } from "../dictation/engines/store/presets.ts";
import type { DownloadTarget } from "../dictation/engines/store/request.ts";
import { assertModelId, createModelStore, type ModelStore } from "../dictation/engines/store/store.ts";
import { storeDir, storeEngines, storeSpec } from "../dictation/engines/stores.ts";
import { reasonOf } from "../errors.ts";
import { createProgressReporter, megabytes, type Writer } from "./progress.ts";

export interface ModelsCliDeps {
  modelsDir: string;
  baseUrl: string;
  stdout: Writer & { isTTY?: boolean };
  stderr: Writer;
  /** Where Ctrl-C comes from; the pull aborts and keeps its partial file. */
  interrupts?: {
    once(event: "SIGINT", listener: () => void): unknown;
    off(event: "SIGINT", l: () => void): unknown;
  };
}

/** A mistake in the command line: exit status 2 with the usage line. */
class UsageError extends Error {}

const isParseArgsError = (error: unknown) =>
  error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS");

const usage = `usage: svc models [--engine ${storeEngines.join("|")}] list | pull NAME [--url URL [--sha256 HEX] [--size BYTES]] | rm NAME | import FILE [--name NAME]`;

/** `--engine ID` before the subcommand (default: the first engine whose models are downloaded). */
function engineArg(argv: string[]): { engine: EngineId; rest: string[] } {
  const [first, second, ...rest] = argv;
  const fallback = storeEngines[0];
  if (fallback === undefined) throw new UsageError("no engine downloads models");
  if (first !== "--engine") return { engine: fallback, rest: argv };
  const engine = storeEngines.find((id) => id === second);
  if (!engine)
    throw new UsageError(
      `--engine must name an engine whose models are downloaded: ${storeEngines.join(", ")}`,
    );
  return { engine, rest };
}

export async function runModelsCommand(argv: string[], deps: ModelsCliDeps): Promise<number> {
  let engine: EngineId;
  let sub: string | undefined;
  let args: string[];
  try {
    const parsed = engineArg(argv);
    engine = parsed.engine;
    [sub, ...args] = parsed.rest;
  } catch (error) {
    deps.stderr.write(`svc: ${(error as Error).message}\n${usage}\n`);
    return 2;
  }
  const spec = storeSpec(engine);
  const store = createModelStore({
    dir: storeDir(deps.modelsDir, engine),
    presets: spec.presets,
    validate: (path) => spec.validate(path),
  });
  const baseUrl = deps.baseUrl || spec.defaultBaseUrl;
  const fail = (message: string, code = 1) => {
    deps.stderr.write(`svc: ${message}\n`);
    return code;
  };
  try {
    switch (sub) {
      case "list":
      case "ls":
        return list(store, { engine, defaultModel: spec.defaultModel, baseUrl }, deps);
      case "pull":
        return await pull(store, args, baseUrl, deps);
      case "rm":
      case "remove": {
        const [name] = parseArgs({ args, allowPositionals: true }).positionals;
        if (!name) throw new UsageError("rm takes one model name");
        if (!store.remove(name)) return fail(`model "${name}" is not installed`);
        deps.stdout.write(`removed ${name}\n`);
        return 0;
      }
      case "import": {
        const { values, positionals: files } = parseArgs({
          args,
          options: { name: { type: "string" } },
          allowPositionals: true,
        });
        if (files.length !== 1 || !files[0]) throw new UsageError("import takes one file");
        const { model, verified } = await store.importFile(files[0], { name: values.name });
        const check = verified === "sha256" ? "SHA-256 verified" : "every tensor checked";
        deps.stdout.write(`imported ${model.id} (${megabytes(model.sizeBytes)}, ${check}) → ${model.path}\n`);
        return 0;
      }
      default:
        return fail(usage, 2);
    }
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error))
      return fail(`${(error as Error).message}\n${usage}`, 2);
    return fail(reasonOf(error));
  } finally {
    if (sub === "pull" || sub === "import") handOver(deps);
  }
}

/**
 * Run as root (sudo, docker exec), a pull or import would leave files the server, running as its
 * own user, could not later replace or delete: the models folder and what is in it go to the owner
 * of the folder that holds it (svc's data folder), and the command says so.
 */
function handOver(deps: ModelsCliDeps): void {
  if (process.getuid?.() !== 0) return;
  let owner: { uid: number; gid: number };
  try {
    owner = statSync(dirname(deps.modelsDir));
  } catch {
    return;
  }
  if (owner.uid === 0) return;
  const give = (path: string) => {
    chownSync(path, owner.uid, owner.gid);
    if (statSync(path).isDirectory()) for (const name of readdirSync(path)) give(join(path, name));
  };
  try {
    give(deps.modelsDir);
    deps.stderr.write(
      `svc: ran as root; gave ${deps.modelsDir} to uid ${owner.uid}:${owner.gid}, the owner of ${dirname(deps.modelsDir)}, so the server can manage its models\n`,
    );
  } catch (error) {
    deps.stderr.write(
      `svc: ran as root and could not give ${deps.modelsDir} to uid ${owner.uid} (${reasonOf(error)}): run sudo chown -R ${owner.uid}:${owner.gid} ${deps.modelsDir}, or run svc models as that user\n`,
    );
  }
}

function list(
  store: ModelStore,
  of: { engine: EngineId; defaultModel: string; baseUrl: string },
  deps: ModelsCliDeps,
): number {
  const defaultModelId = of.defaultModel;
  const overview = describeModels({ ...of, store, active: defaultModelId, downloads: [] });
  const rows = overview.models.map((model) => {
    const state = model.installed
      ? "installed"
      : model.partialBytes > 0
        ? `partial ${Math.floor((model.partialBytes / model.sizeBytes) * 100)}%`
        : "-";
    const name = model.id === defaultModelId ? `${model.id} (default)` : model.id;
    return [name, megabytes(model.sizeBytes), state, model.description ?? "custom model"];
  });
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i]?.length ?? 0), 5));
  const line = (cells: string[]) =>
    `${cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd()}\n`;
  deps.stdout.write(line(["MODEL", "SIZE", "STATE", "DESCRIPTION"]));
  for (const row of rows) deps.stdout.write(line(row));
  deps.stdout.write(`\nmodels directory: ${store.dir}\n`);
  return 0;
}

function targetFor(
  store: ModelStore,
  name: string,
  values: { url?: string; sha256?: string; size?: string },
  baseUrl: string,
): DownloadTarget {
  assertModelId(name);
  const preset = findPreset(name, store.presets);
  if (preset) {
    if (values.sha256 || values.size)
      throw new UsageError(`${name} is a preset: its size and SHA-256 are pinned`);
    return { ...presetTarget(preset, baseUrl), ...(values.url ? { url: values.url } : {}) };
  }
  if (!values.url) {
    const names = store.presets.map((p) => p.id).join(", ");
    throw new UsageError(
      `"${name}" is not a preset (${names}); for another model pass --url URL --sha256 HEX`,
    );
  }
  if (values.sha256 && !/^[0-9a-f]{64}$/i.test(values.sha256))
    throw new UsageError("--sha256 must be 64 hex digits");
  if (values.size && !/^\d+$/.test(values.size)) throw new UsageError("--size must be a number of bytes");
  const target: DownloadTarget = { id: name, url: values.url };
  if (values.sha256) target.sha256 = values.sha256.toLowerCase();
  if (values.size) target.sizeBytes = Number(values.size);
  return target;
}

async function pull(
  store: ModelStore,
  args: string[],
  baseUrl: string,
  deps: ModelsCliDeps,
): Promise<number> {
  const options = { url: { type: "string" }, sha256: { type: "string" }, size: { type: "string" } } as const;
  const { values, positionals: names } = parseArgs({ args, options, allowPositionals: true });
  const [name] = names;
  if (names.length !== 1 || !name) throw new UsageError("pull takes one model name");
  const target = targetFor(store, name, values, baseUrl);
  const installed = store.get(name);
  if (installed) {
    deps.stdout.write(`${name} is already installed at ${installed.path}\n`);
    return 0;
  }
  if (!target.sha256) {
    deps.stderr.write(
      `svc: warning: no --sha256 given; ${name} is checked only by size and model structure, not by checksum\n`,
    );
  }
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  deps.interrupts?.once("SIGINT", interrupt);
  const progress = createProgressReporter(name, deps.stdout, deps.stdout.isTTY === true);
  try {
    const result = await downloadModel(store, target, {
      signal: controller.signal,
      onProgress: progress.update,
    });
    progress.finish();
    const check =
      result.verified === "sha256"
        ? "SHA-256 verified"
        : result.verified === "size"
          ? "size checked"
          : "every tensor checked";
    deps.stdout.write(
      `installed ${name} (${megabytes(result.model.sizeBytes)}, ${check}) → ${result.model.path}\n`,
    );
    return 0;
  } catch (error) {
    progress.finish();
    if (!controller.signal.aborted) throw error;
    const kept = megabytes(store.partialBytes(name));
    deps.stderr.write(`svc: interrupted; ${kept} kept, run the same command again to resume\n`);
    return 130;
  } finally {
    deps.interrupts?.off("SIGINT", interrupt);
  }
}
