import type { AuthMode } from "./access/keys.ts";
import { type AccessService, createAccessService, type SessionBounds } from "./access/service.ts";
import type { Config } from "./config.ts";
import { createAccessRepo } from "./db/access-repo.ts";
import { type Database, openDatabase } from "./db/database.ts";
import { runMigrations } from "./db/migrate.ts";
import { migrations } from "./db/migrations/index.ts";
import { createDictation, type Dictation } from "./dictation/dictation.ts";
import type { DeviceChoice } from "./dictation/engines/device-choice.ts";
import type { EngineId } from "./dictation/engines/ids.ts";
import type { ModelPreset } from "./dictation/engines/store/presets.ts";
import {
  createEngineModelServices,
  createEngineStores,
  type EngineModelServices,
} from "./dictation/engines/stores.ts";
import { createEventBus, type EventBus } from "./events.ts";
import type { Logger } from "./logger.ts";
import type { PluginHost, PluginHostOptions } from "./plugins/host.ts";
import { createPluginSystem } from "./plugins/system.ts";
import { createServices, type Services } from "./services.ts";

export interface Runtime {
  db: Database;
  /** Keys, sessions, login codes and the access mode (SVC_AUTH). */
  access: AccessService;
  events: EventBus;
  services: Services;
  plugins: PluginHost;
  /** The model stores and downloads of the engines whose models are files (engines/stores.ts). */
  models: EngineModelServices;
  dictation: Dictation;
  /** Stops plugins, downloads and engines, then closes the database. */
  close(): Promise<void>;
}

export interface RuntimeParts {
  db: Database;
  events: EventBus;
  logger: Logger;
  pluginsDir: string;
  registryUrl: string;
  modelsDir: string;
  modelBaseUrl: string;
  /** The voice-activity detector; default Silero VAD. */
  vad?: "silero" | "energy";
  /** SVC_WHISPER_DEVICE; default `auto`. */
  whisperDevice?: DeviceChoice;
  /** Default: the upstream presets (tests pass presets pinned to files they generate). */
  modelPresets?: { readonly [K in EngineId]?: readonly ModelPreset[] };
  pluginHost?: Partial<PluginHostOptions>;
  /** SVC_AUTH when set: it decides over the mode stored from the console. */
  authMode?: AuthMode | null;
  /** Console sessions' lifetimes and cap per key (SVC_SESSION_*); default their defaults. */
  sessions?: SessionBounds;
}

/**
 * Builds services, plugins (not started), models and the dictation path over an open database.
 * `openRuntime` and the tests' `createTestApp` both assemble svc through this one function.
 */
export function assembleRuntime(parts: RuntimeParts): Runtime {
  const { db, events, logger } = parts;
  const services = createServices(db, events, logger);
  const plugins = createPluginSystem({
    pluginsDir: parts.pluginsDir,
    registryUrl: parts.registryUrl,
    db,
    settings: services.settings,
    events,
    logger,
    overrides: parts.pluginHost,
  });
  const stores = createEngineStores({ modelsDir: parts.modelsDir, presets: parts.modelPresets });
  const models = createEngineModelServices({
    stores,
    settings: services.settings,
    baseUrl: parts.modelBaseUrl,
    events,
    logger,
  });
  const dictation = createDictation({
    services,
    stores,
    hooks: () => plugins.hooks(),
    transcriptHooks: () => plugins.transcriptHooks(),
    notify: (event) => plugins.notify(event),
    events,
    logger,
    vad: parts.vad,
    whisperDevice: parts.whisperDevice,
  });
  const access = createAccessService({
    repo: createAccessRepo(db),
    envMode: parts.authMode ?? null,
    sessions: parts.sessions,
  });
  return {
    db,
    access,
    events,
    services,
    plugins,
    models,
    dictation,
    async close() {
      services.history.stopRetention();
      await plugins.stop();
      // Downloads stop with their partial files kept; the next pull resumes them.
      await Promise.all(Object.values(models).map((service) => service.stop()));
      await dictation.close();
      db.close();
    },
  };
}

/**
 * Everything svc runs on, built from the configuration: the database (migrated), services,
 * plugins (loaded), models and the dictation path. `svc serve` puts HTTP in front of it;
 * `svc transcribe` uses it directly. Throws when the database cannot be opened or migrated.
 */
export async function openRuntime(config: Config, logger: Logger): Promise<Runtime> {
  const db = openDatabase(config.dbPath, { migrations });
  const applied = runMigrations(db, migrations);
  if (applied.length > 0) logger.info("database migrated", { applied: applied.map((m) => m.version) });
  const runtime = assembleRuntime({
    db,
    events: createEventBus((error) => logger.warn("event listener failed", { error })),
    logger,
    pluginsDir: config.pluginsDir,
    registryUrl: config.npmRegistry,
    modelsDir: config.modelsDir,
    modelBaseUrl: config.modelBaseUrl,
    vad: config.vad,
    whisperDevice: config.whisperDevice,
    pluginHost: { timeouts: { setupMs: config.pluginSetupTimeoutMs } },
    authMode: config.auth,
    sessions: config.sessions,
  });
  // A broken plugins folder is reported, never fatal: svc runs without plugins.
  await runtime.plugins.start().catch((error) => logger.error("plugins could not be loaded", { error }));
  return runtime;
}
