import type { Database } from "./db/database.ts";
import { createHistoryRepo } from "./db/history-repo.ts";
import { createSettingsRepo } from "./db/settings-repo.ts";
import type { EventBus } from "./events.ts";
import { createHistoryService, type HistoryService } from "./history/service.ts";
import type { Logger } from "./logger.ts";
import { createSettingsService, type SettingsService } from "./settings/service.ts";

/** The services routes and the dictation pipeline use, built once over one database. */
export interface Services {
  settings: SettingsService;
  history: HistoryService;
}

export function createServices(db: Database, events: EventBus, logger: Logger): Services {
  const settings = createSettingsService({ repo: createSettingsRepo(db), events, logger });
  const history = createHistoryService({ repo: createHistoryRepo(db), settings, events, logger });
  // A shorter retention applies at once, not at the next daily run.
  settings.onChange((key) => {
    if (key === "history_retention_days") history.purgeExpired();
  });
  return { settings, history };
}
