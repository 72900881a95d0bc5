import { mkdirSync, readdirSync, renameSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { AppError } from "../../../errors.ts";
import { isModelName } from "../../../settings/values.ts";
import { copyHashing, fileSize, removeFile } from "./files.ts";
import { findPreset, type ModelPreset } from "./presets.ts";

export interface InstalledModel {
  id: string;
  file: string;
  path: string;
  sizeBytes: number;
  modifiedAt: string;
  /** True when the id names a preset (its bytes were verified when it was installed). */
  preset: boolean;
}

/**
 * What an engine whose models are files to download declares (`EngineDefinition.store`): the
 * registry builds its store and download service from it, and `/api/models`, `svc models` and the
 * Models screen list it. Whisper's is the one today (engines/whisper/definition.ts).
 */
export interface ModelStoreSpec {
  /** The models it knows by name, pinned by size and hash. */
  readonly presets: readonly ModelPreset[];
  /** The preset a fresh install offers to download. */
  readonly defaultModel: string;
  /** Where its presets are downloaded from (SVC_MODEL_BASE_URL overrides it: a mirror). */
  readonly defaultBaseUrl: string;
  /** Throws when the file at `path` is not a model this engine loads (run before any install). */
  validate(path: string): void;
}

/**
 * An engine's models directory. Installed models are `ggml-<id>.bin` (a hand-copied `<id>.bin` is listed too);
 * downloads and imports write `<file>.partial` or a hidden temporary name and rename into place, so a
 * `.bin` name always holds a complete, checked file.
 */
export interface ModelStore {
  readonly dir: string;
  /** The models this store knows by name (its engine's presets). */
  readonly presets: readonly ModelPreset[];
  /** Where model `id` is (or will be) installed. Throws 400 `invalid_model_id` for an unsafe id. */
  pathFor(id: string): string;
  partialPathFor(id: string): string;
  lockPathFor(id: string): string;
  get(id: string): InstalledModel | undefined;
  listInstalled(): InstalledModel[];
  /** Bytes of an interrupted download that the next pull resumes from (0 when none). */
  partialBytes(id: string): number;
  /** Deletes the model file and any partial download; false when there was neither. */
  remove(id: string): boolean;
  importFile(source: string, options?: { name?: string }): Promise<ImportResult>;
  /** Throws when the file at `path` is not a loadable model. */
  /**
   * The one model-file check, run before any file is installed (download, import, CLI): the
   * header, the vocabulary and every tensor, as the engine checks it before loading.
   */
  validate(path: string): void;
  ensureDir(): void;
}

export interface ImportResult {
  model: InstalledModel;
  /** "sha256" when the file was matched against a preset's pinned hash. */
  verified: "sha256" | "structure";
}

/** A usable model name: what `pathFor` and the `stt_model` setting accept. */
export const isModelId = isModelName;

export function assertModelId(id: string): void {
  if (!isModelId(id)) {
    throw new AppError(
      "invalid_model_id",
      `"${id}" is not a model name: use letters, digits, ".", "_" and "-" (at most 100), e.g. base.en.`,
      { details: { id } },
    );
  }
}

/** `ggml-base.en.bin` → `base.en`; `my-model.bin` → `my-model`. */
export const idFromFileName = (name: string) => name.replace(/^ggml-/, "").replace(/\.bin$/, "");

export function createModelStore(options: {
  dir: string;
  presets: readonly ModelPreset[];
  /** The engine's own check of a model file (ModelStoreSpec.validate). */
  validate(path: string): void;
}): ModelStore {
  const { dir, presets } = options;
  const canonical = (id: string) => {
    assertModelId(id);
    return join(dir, `ggml-${id}.bin`);
  };
  const pathFor = (id: string) => {
    const path = canonical(id);
    const plain = join(dir, `${id}.bin`);
    return fileSize(path) === undefined && fileSize(plain) !== undefined ? plain : path;
  };
  const describe = (id: string, path: string): InstalledModel | undefined => {
    try {
      const stat = statSync(path);
      if (!stat.isFile()) return undefined;
      const file = basename(path);
      const preset = findPreset(id, presets) !== undefined;
      return { id, file, path, sizeBytes: stat.size, modifiedAt: stat.mtime.toISOString(), preset };
    } catch {
      return undefined;
    }
  };
  const store: ModelStore = {
    dir,
    presets,
    pathFor,
    partialPathFor: (id) => `${canonical(id)}.partial`,
    lockPathFor: (id) => `${canonical(id)}.lock`,
    get: (id) => describe(id, pathFor(id)),
    listInstalled() {
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        return [];
      }
      const byId = new Map<string, InstalledModel>();
      for (const name of names.filter((n) => n.endsWith(".bin")).sort()) {
        const id = idFromFileName(name);
        if (!isModelName(id) || byId.has(id)) continue;
        const model = describe(id, pathFor(id));
        if (model) byId.set(id, model);
      }
      return [...byId.values()];
    },
    partialBytes: (id) => fileSize(store.partialPathFor(id)) ?? 0,
    remove(id) {
      const path = pathFor(id);
      const partial = store.partialPathFor(id);
      const existed = fileSize(path) !== undefined || fileSize(partial) !== undefined;
      removeFile(path);
      removeFile(partial);
      return existed;
    },
    importFile: (source, importOptions = {}) => importModel(store, source, importOptions.name),
    validate: (path) => options.validate(path),
    ensureDir: () => mkdirSync(dir, { recursive: true, mode: 0o700 }),
  };
  return store;
}

function presetMismatch(preset: ModelPreset, source: string): AppError {
  return new AppError(
    "preset_mismatch",
    `${source} is not the upstream ${preset.id} model (size or SHA-256 differ). Import it under another name, e.g. svc models import FILE --name my-${preset.id}.`,
    { details: { id: preset.id, expectedBytes: preset.sizeBytes, expectedSha256: preset.sha256 ?? null } },
  );
}

async function importModel(store: ModelStore, source: string, name?: string): Promise<ImportResult> {
  if (fileSize(source) === undefined) throw new AppError("not_found", `There is no file at ${source}.`);
  let id = name ?? idFromFileName(basename(source));
  assertModelId(id);
  store.ensureDir();
  const temporary = join(store.dir, `.import-${crypto.randomUUID()}.partial`);
  try {
    const { sha256, size } = await copyHashing(source, temporary);
    // A renamed upstream file is recognised by its bytes unless the caller chose the name.
    const recognised = store.presets.find((p) => p.sizeBytes === size && p.sha256 === sha256);
    if (recognised && name === undefined) id = recognised.id;
    const preset = findPreset(id, store.presets);
    if (preset && (preset.sizeBytes !== size || (preset.sha256 !== undefined && preset.sha256 !== sha256))) {
      throw presetMismatch(preset, source);
    }
    store.validate(temporary);
    const target = store.pathFor(id);
    if (!preset && fileSize(target) !== undefined) {
      throw new AppError("model_exists", `A model named "${id}" is already installed; remove it first.`, {
        details: { id },
      });
    }
    renameSync(temporary, target);
    const model = store.get(id);
    if (!model) throw new Error(`imported model ${id} vanished from ${store.dir}`);
    return { model, verified: preset?.sha256 ? "sha256" : "structure" };
  } finally {
    removeFile(temporary);
  }
}
