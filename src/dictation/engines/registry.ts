import type { SettingKey } from "../../settings/catalog.ts";
import type { EngineDefinition } from "./definition.ts";
import type { EngineId } from "./ids.ts";
import { remoteEngine } from "./remote/definition.ts";
import { sphinxEngine } from "./sphinx/definition.ts";
import { whisperEngine } from "./whisper/definition.ts";

/** The registry: the compiler refuses an engine id without its definition. */
export const engines = {
  whisper: whisperEngine,
  sphinx: sphinxEngine,
  remote: remoteEngine,
} as const satisfies Record<EngineId, EngineDefinition>;

export const engineDefinition = (id: EngineId): EngineDefinition => engines[id];

/** The engine that lists `key` among its own settings, if one does. */
export const engineOwning = (key: SettingKey): EngineId | undefined =>
  (Object.keys(engines) as EngineId[]).find((id) => engines[id].settings.includes(key));

/** Every setting that changes some engine, plus the choice of engine itself. */
export const engineSettingKeys: ReadonlySet<SettingKey> = new Set<SettingKey>([
  "stt_engine",
  ...Object.values(engines).flatMap((engine: EngineDefinition) => engine.settings),
]);

/** Worker modules of every engine, for the build. */
export const workerEntries: readonly string[] = Object.values(engines).flatMap(
  (engine: EngineDefinition) => engine.workerEntries ?? [],
);
