import type { SettingKey, SettingValue } from "../../settings/catalog.ts";
import type { SpeechEngine } from "./types.ts";
import type { ModelStore } from "./whisper/models/store.ts";

// What every speech engine declares (engines/registry.ts lists one per id).

/** The settings an engine reads, and nothing else of the settings service. */
export interface EngineSettings {
  get<K extends SettingKey>(key: K): SettingValue<K>;
}

export interface EngineContext {
  settings: EngineSettings;
  /** The whisper model files (`stt_model` names one of them). */
  models: ModelStore;
}

/** What the settings select now: the model to report, a cache key, and how to load it. */
export interface EngineSelection {
  model: string;
  /** The loaded engine is reused while this stays the same, and reloaded when it changes. */
  key: string;
  create(): Promise<SpeechEngine>;
}

/** Everything svc needs to know about one speech engine; one entry per engine id. */
export interface EngineDefinition {
  /** Settings whose change reloads this engine (and warms it again when it is the selected one). */
  readonly settings: readonly SettingKey[];
  /** Dictation units the scheduler may run on it at once. */
  concurrency(settings: EngineSettings): number;
  /**
   * How vocabulary biases recognition: `prompt` gives the engine whisper's initial prompt built
   * from the terms (and its output is checked for prompt echoes); `words` hands it the terms.
   */
  readonly bias: "prompt" | "words";
  /** Reads the settings; throws 503 (`model_unavailable`, `engine_unavailable`) when it cannot run. */
  select(context: EngineContext): EngineSelection;
  /** Modules it runs in a Worker: `bun build --compile` must embed them (scripts/build.ts). */
  readonly workerEntries?: readonly string[];
}
