import type { EngineId } from "../ids.ts";
import type { ModelPreset } from "./presets.ts";
import type { DownloadProgress } from "./request.ts";

import type { InstalledModel, ModelStore } from "./store.ts";

/** One row of `GET /api/models` and `svc models list`: a preset, an installed custom model, or both. */
export interface ModelEntry {
  id: string;
  file: string;
  preset: boolean;
  description: string | null;
  languages: ModelPreset["languages"] | null;
  quantization: ModelPreset["quantization"] | null;
  /** The preset's pinned size, or the installed file's size for a custom model. */
  sizeBytes: number;
  sha256: string | null;
  installed: boolean;
  active: boolean;
  /** Bytes of an interrupted download the next pull resumes from. */
  partialBytes: number;
  download: DownloadState | null;
  /** Why the last download failed, until the model is pulled again. */
  lastFailure: DownloadFailure | null;
}

export interface ModelsOverview {
  /** The engine these models are for. */
  engine: EngineId;
  /** The engine's active model (whisper's: the `stt_model` setting). */
  active: string;
  activeInstalled: boolean;
  defaultModel: string;
  baseUrl: string;
  modelsDir: string;
  models: ModelEntry[];
  downloads: DownloadState[];
}

function entry(
  preset: ModelPreset | undefined,
  installed: InstalledModel | undefined,
  context: {
    store: ModelStore;
    active: string;
    downloads: DownloadState[];
    failures?: ReadonlyMap<string, DownloadFailure>;
  },
): ModelEntry {
  const id = preset?.id ?? installed?.id ?? "";
  return {
    id,
    file: installed?.file ?? preset?.file ?? `ggml-${id}.bin`,
    preset: preset !== undefined,
    description: preset?.description ?? null,
    languages: preset?.languages ?? null,
    quantization: preset?.quantization ?? null,
    sizeBytes: preset?.sizeBytes ?? installed?.sizeBytes ?? 0,
    sha256: preset?.sha256 ?? null,
    installed: installed !== undefined,
    active: id === context.active,
    partialBytes: context.store.partialBytes(id),
    download: context.downloads.find((download) => download.id === id) ?? null,
    lastFailure: context.failures?.get(id) ?? null,
  };
}

export function describeModels(input: {
  /** The engine whose store it is, and the preset it offers first. */
  engine: EngineId;
  defaultModel: string;
  store: ModelStore;
  baseUrl: string;
  active: string;
  downloads: DownloadState[];
  failures?: ReadonlyMap<string, DownloadFailure>;
}): ModelsOverview {
  const installed = new Map(input.store.listInstalled().map((model) => [model.id, model]));
  const { presets } = input.store;
  const models = presets.map((preset) => entry(preset, installed.get(preset.id), input));
  for (const model of installed.values()) {
    if (!presets.some((preset) => preset.id === model.id)) models.push(entry(undefined, model, input));
  }
  return {
    engine: input.engine,
    active: input.active,
    activeInstalled: installed.has(input.active),
    defaultModel: input.defaultModel,
    baseUrl: input.baseUrl,
    modelsDir: input.store.dir,
    models,
    downloads: input.downloads,
  };
}

export interface DownloadState extends DownloadProgress {
  id: string;
  /** Whole percent, or null while the size is unknown. */
  percent: number | null;
  startedAt: string;
}

/** Why the last download of a model failed; cleared when it is pulled again. */
export interface DownloadFailure {
  code: string;
  message: string;
  at: string;
}
