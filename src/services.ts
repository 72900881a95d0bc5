import { createDataSections } from "./data/sections.ts";
import { createDataTransfer, type DataTransfer } from "./data/transfer.ts";
import type { Database } from "./db/database.ts";
import { createDictionaryRepo, type DictionaryRepo } from "./db/dictionary-repo.ts";
import { createFormatsRepo, type FormatsRepo } from "./db/formats-repo.ts";
import { createHistoryRepo } from "./db/history-repo.ts";
import { createSettingsRepo } from "./db/settings-repo.ts";
import { createVocabularyRepo, type VocabularyRepo } from "./db/vocabulary-repo.ts";
import type { EventBus } from "./events.ts";
import { builtinFormats } from "./formats/builtins.ts";
import { createFormatMatcher, type FormatMatcher } from "./formats/matcher.ts";
import { createHistoryService, type HistoryService } from "./history/service.ts";
import type { Logger } from "./logger.ts";
import { createSettingsService, type SettingsService } from "./settings/service.ts";
import { version } from "./version.ts";

/** The services routes and the dictation pipeline use, built once over one database. */
export interface Services {
  settings: SettingsService;
  history: HistoryService;
  /** GET /api/export and POST /api/import: settings and the data sections in one document. */
  transfer: DataTransfer;
  /** Recompile the pipeline's matcher when `dictionary.version()` changes; `recordUsage` once per run. */
  dictionary: DictionaryRepo;
  vocabulary: VocabularyRepo;
  formats: FormatsRepo;
  /** App context → format; recompiles itself when the formats change. */
  formatMatcher: FormatMatcher;
}

export function createServices(db: Database, events: EventBus, logger: Logger): Services {
  const settings = createSettingsService({ repo: createSettingsRepo(db), events, logger });
  const history = createHistoryService({ repo: createHistoryRepo(db), settings, events, logger });
  // A shorter retention applies at once, not at the next daily run.
  settings.onChange((key) => {
    if (key === "history_retention_days") history.purgeExpired();
  });
  const formats = createFormatsRepo(db);
  // Idempotent: adds built-ins a newer release ships, never overwrites the user's edits.
  formats.seedBuiltins(builtinFormats);
  const dictionary = createDictionaryRepo(db);
  const vocabulary = createVocabularyRepo(db);
  const sections = createDataSections({ dictionary, vocabulary, formats });
  const transfer = createDataTransfer({ db, settings, sections, events, version });
  return {
    settings,
    history,
    transfer,
    dictionary,
    vocabulary,
    formats,
    formatMatcher: createFormatMatcher(formats),
  };
}
