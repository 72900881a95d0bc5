/**
 * The speech engines svc has: the values of the `stt_engine` setting, the `engine` of a transcript,
 * and `svc transcribe --engine`. No imports, so settings, routes and the CLI can all derive from it.
 * Adding an engine starts here (docs/ARCHITECTURE.md, "Add a speech engine"). A leaf at the root so
 * that the settings catalog, below the dictation room, can name them too.
 */
export const engineIds = ["whisper", "sphinx", "remote"] as const;
export type EngineId = (typeof engineIds)[number];

export const isEngineId = (value: string): value is EngineId =>
  (engineIds as readonly string[]).includes(value);

/** The engine a fresh install dictates with: embedded, offline, accurate. */
export const defaultEngineId: EngineId = "whisper";
