import { join } from "node:path";
import type { EventBus } from "../../events.ts";
import type { Logger } from "../../logger.ts";
import type { EngineSettings, EngineStores } from "./definition.ts";
import { type EngineId, engineIds } from "./ids.ts";
import { engines } from "./registry.ts";
import type { ModelPreset } from "./store/presets.ts";
import { createModelService, type ModelService } from "./store/service.ts";
import { createModelStore, type ModelStore, type ModelStoreSpec } from "./store/store.ts";

// The model stores of the engines whose models are files to download (EngineDefinition.store),
// built from the registry: the server, `svc models`, `/api/models` and the Models screen ask here,
// so an engine with downloads of its own plugs in with its definition alone.

export type { EngineStores };
/** Each downloading engine's store with its downloads (pull, remove, the overview). */
export type EngineModelServices = { readonly [K in EngineId]?: ModelService };

/** The engines that declare a store, in registry order. */
export const storeEngines: readonly EngineId[] = engineIds.filter((id) => engines[id].store !== undefined);

/** The store an engine declares; throws for one that downloads nothing (a caller's mistake). */
export function storeSpec(engine: EngineId): ModelStoreSpec {
  const spec = engines[engine].store;
  if (!spec) throw new Error(`the ${engine} engine has no model store`);
  return spec;
}

/**
 * Where an engine's models live under the models directory: the first downloading engine's (whisper)
 * in the directory itself, as before engines had stores of their own; any other's in `<dir>/<id>`.
 */
export const storeDir = (modelsDir: string, engine: EngineId): string =>
  engine === storeEngines[0] ? modelsDir : join(modelsDir, engine);

export interface EngineStoreOptions {
  /** SVC_MODELS_DIR. */
  modelsDir: string;
  /** Presets in place of an engine's own (tests pin them to files they generate). */
  presets?: { readonly [K in EngineId]?: readonly ModelPreset[] };
}

export function createEngineStores(options: EngineStoreOptions): EngineStores {
  const stores: { [K in EngineId]?: ModelStore } = {};
  for (const engine of storeEngines) {
    const spec = storeSpec(engine);
    stores[engine] = createModelStore({
      dir: storeDir(options.modelsDir, engine),
      presets: options.presets?.[engine] ?? spec.presets,
      validate: (path) => spec.validate(path),
    });
  }
  return stores;
}

/** The stores with their downloads: one service per downloading engine. */
export function createEngineModelServices(options: {
  stores: EngineStores;
  settings: EngineSettings;
  /** SVC_MODEL_BASE_URL: a mirror for every engine's presets; unset, each engine's own source. */
  baseUrl?: string;
  events: EventBus;
  logger: Logger;
}): EngineModelServices {
  const services: { [K in EngineId]?: ModelService } = {};
  const context = { settings: options.settings, stores: options.stores };
  for (const engine of storeEngines) {
    const store = options.stores[engine];
    if (!store) continue;
    const spec = storeSpec(engine);
    services[engine] = createModelService({
      engine,
      defaultModel: spec.defaultModel,
      store,
      baseUrl: options.baseUrl || spec.defaultBaseUrl,
      events: options.events,
      logger: options.logger,
      activeModel: () => engines[engine].activeModel(context),
    });
  }
  return services;
}

/** The stores behind the services (an engine context's `stores`). */
export function engineStoresOf(services: EngineModelServices): EngineStores {
  const stores: { [K in EngineId]?: ModelStore } = {};
  for (const engine of storeEngines) {
    const service = services[engine];
    if (service) stores[engine] = service.store;
  }
  return stores;
}
