import type { Database } from "../db/database.ts";
import { createPluginStorageRepo } from "../db/plugin-storage-repo.ts";
import type { EventBus } from "../events.ts";
import type { Logger } from "../logger.ts";
import type { SettingsService } from "../settings/service.ts";
import { createPluginHost, type PluginHost, type PluginHostOptions } from "./host.ts";
import { createInstaller } from "./installer.ts";
import { createRegistryClient } from "./registry-client.ts";
import { pluginSettingsFrom } from "./settings-store.ts";

/** The plugin host as svc runs it: settings-driven, storage in the database, installs from `registryUrl`. */
export function createPluginSystem(deps: {
  pluginsDir: string;
  registryUrl: string;
  db: Database;
  settings: SettingsService;
  events: EventBus;
  logger: Logger;
  overrides?: Partial<PluginHostOptions>;
}): PluginHost {
  const logger = deps.logger.child({ component: "plugins" });
  return createPluginHost({
    pluginsDir: deps.pluginsDir,
    settings: pluginSettingsFrom(deps.settings),
    storage: createPluginStorageRepo(deps.db),
    events: deps.events,
    logger,
    installer: createInstaller({
      pluginsDir: deps.pluginsDir,
      registry: createRegistryClient({ url: deps.registryUrl }),
      logger,
    }),
    ...deps.overrides,
  });
}
