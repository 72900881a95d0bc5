import type { EngineContext, EngineModel, EngineRuntime } from "./definition.ts";
import { type EngineId, engineIds } from "./ids.ts";
import { engines } from "./registry.ts";

// The models of every engine, asked of the registry: Wyoming's describe, /v1 and GET /api/engines
// read them here, so a new engine's models reach them without a line of theirs.

/** One engine as people see it: what it is, and the models it can answer with. */
export interface EngineView {
  id: EngineId;
  title: string;
  description: string;
  models: EngineModel[];
  /** What it runs on, once loaded (whisper: its build and device). */
  runtime?: EngineRuntime;
}

export function engineViews(context: EngineContext): EngineView[] {
  return engineIds.map((id) => {
    const runtime = engines[id].runtime?.();
    return {
      id,
      title: engines[id].title,
      description: engines[id].description,
      models: engines[id].models(context),
      ...(runtime && { runtime }),
    };
  });
}

/** The installed models a dictation may name (`modelPerRequest`), with their engines, in registry order. */
export function requestableModels(context: EngineContext): (EngineModel & { engine: EngineId })[] {
  return engineIds.flatMap((engine) =>
    engines[engine].modelPerRequest
      ? engines[engine]
          .models(context)
          .filter((model) => model.installed)
          .map((model) => ({ ...model, engine }))
      : [],
  );
}

/**
 * The languages the selected engine's active model speaks, as ISO 639 codes (empty when it is not
 * known): the choices the console offers for the `language` setting.
 */
export function activeLanguages(context: EngineContext): string[] {
  const engine = context.settings.get("stt_engine");
  return engines[engine].models(context).find((model) => model.active)?.languages ?? [];
}
