import type { SettingKey, SettingValue } from "../../settings/catalog.ts";
import type { DeviceChoice, GpuApi } from "./device-choice.ts";
import type { EngineId } from "./ids.ts";
import type { ModelStore, ModelStoreSpec } from "./store/store.ts";
import type { SpeechEngine } from "./types.ts";

// What every speech engine declares (engines/registry.ts lists one per id).

/** The settings an engine reads, and nothing else of the settings service. */
export interface EngineSettings {
  get<K extends SettingKey>(key: K): SettingValue<K>;
}

/** Each downloading engine's model files (engines/stores.ts builds them from the registry). */
export type EngineStores = { readonly [K in EngineId]?: ModelStore };

/**
 * What an engine is asked with: the settings, the model stores of the engines that download, and
 * where an engine that can use a GPU runs.
 */
export interface EngineContext {
  settings: EngineSettings;
  /** Each downloading engine's model files (an engine reads its own). */
  stores: EngineStores;
  /** Where an engine that can use a GPU runs (SVC_WHISPER_DEVICE); `auto` when absent. */
  device?: DeviceChoice;
}

/** What a loaded engine runs on, for GET /api/engines. */
export interface EngineRuntime {
  /** The native build: "x86-64-v3 (AVX2)", "vulkan (Vulkan, CPU part x86-64-v2)". */
  build: string;
  /** "CPU", or the GPU with its memory. */
  device: string;
  /** Why it is not on a GPU though one was looked for. */
  note?: string;
}

/** What the settings select now: the model to report, a cache key, and how to load it. */
export interface EngineSelection {
  model: string;
  /** The loaded engine is reused while this stays the same, and reloaded when it changes. */
  key: string;
  create(): Promise<SpeechEngine>;
}

/**
 * One model an engine can answer with, as Wyoming's `describe`, `/v1/models`, `GET /api/engines`
 * and the console list it.
 */
export interface EngineModel {
  /** The name a request and the settings use. */
  id: string;
  /** It can answer now: downloaded, built in, or configured. */
  installed: boolean;
  /** The settings select it: it answers a request that names no model. */
  active: boolean;
  /** The languages it speaks, as ISO 639 codes; empty when not known. */
  languages: string[];
  /** One sentence for a person: what it is, or what it still needs. */
  description: string;
  /** Who made it (Wyoming's `attribution`). */
  attribution: { name: string; url: string };
  /** When its file was written, in seconds since 1970 (`/v1/models`' `created`); 0 without a file. */
  created: number;
}

/** Everything svc needs to know about one speech engine; one entry per engine id. */
export interface EngineDefinition {
  /** Its name for people: "Whisper (on this machine)"; also the title of its settings' group. */
  readonly title: string;
  /** What it is, what it is good at and what it needs, in a sentence or two. */
  readonly description: string;
  /**
   * Its own settings: declared `group: "engine"` in the catalog and filed under this engine's id
   * (GET /api/settings/schema). A change warms it again when it is the selected one, reloading it
   * when its selection key changed.
   */
  readonly settings: readonly SettingKey[];
  /** Dictation units the scheduler may run on it at once. */
  concurrency(settings: EngineSettings): number;
  /**
   * How vocabulary biases recognition: `prompt` gives the engine whisper's initial prompt built
   * from the terms (and its output is checked for prompt echoes); `words` hands it the terms.
   */
  readonly bias: "prompt" | "words";
  /**
   * The model it answers with now, as the settings choose it: what plugin hooks are told as
   * `modelId` and what GET /api/models marks active. Cheap: it reads the settings, not the disk.
   */
  activeModel(context: EngineContext): string;
  /** The models it can answer with now, the active one first (listed even when it is not installed). */
  models(context: EngineContext): EngineModel[];
  /**
   * Whether a dictation may name one of its installed models instead of the settings' choice
   * (`/v1`'s `model`, Wyoming's `transcribe` name, a plugin's beforeTranscribe): `select` then
   * gets it as `model`, and `/v1/models` lists them.
   */
  readonly modelPerRequest: boolean;
  /**
   * Reads the settings (and the model a dictation names, where `modelPerRequest`); throws 503
   * (`model_unavailable`, `engine_unavailable`) when it cannot run, 400 for a malformed model name.
   */
  select(context: EngineContext, model?: string): EngineSelection;
  /**
   * Its models are files to download: the registry builds a store for them (engines/stores.ts),
   * which `/api/models`, `svc models` and the Models screen list, pull and remove.
   */
  readonly store?: ModelStoreSpec;
  /**
   * Its native library, for `svc version`: a name and one line on the build (and device, for
   * `device`) this machine gets.
   */
  readonly library?: { readonly name: string; describe(device: DeviceChoice): Promise<string> };
  /** What it runs on once loaded (whisper: its build and device); absent before the first load. */
  runtime?(): EngineRuntime | undefined;
  /**
   * Lists its devices for one GPU interface as JSON, in the probe process (`GPU_PROBE_COMMAND`), for
   * an engine with GPU builds.
   */
  probeDevices?(api: GpuApi): unknown;
  /**
   * Serves the engine on a GPU in a process of its own (`GPU_ENGINE_COMMAND`), for an engine that
   * runs its GPU builds apart from the server; resolves with the exit code.
   */
  serveGpu?(): Promise<number>;
  /** Modules it runs in a Worker: `bun build --compile` must embed them (scripts/build.ts). */
  readonly workerEntries?: readonly string[];
}
