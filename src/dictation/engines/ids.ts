// The engine ids live in the root leaf src/engine-ids.ts, where the settings catalog can read them
// too; the registry's room re-exports them for its own imports.
export { defaultEngineId, type EngineId, engineIds, isEngineId } from "../../engine-ids.ts";
