import * as v from "valibot";
import type { Database } from "../db/database.ts";
import type { EventBus, EventType } from "../events.ts";
import { isKnownSetting } from "../settings/catalog.ts";
import type { SettingsImport, SettingsService } from "../settings/service.ts";
import { jsonObject, parseOrThrow } from "../validation.ts";

export type ImportMode = "merge" | "replace";

export interface ImportCounts {
  created: number;
  updated: number;
  unchanged: number;
  deleted: number;
}

/**
 * One list of a user's data in the export document (dictionary, vocabulary, formats). Each
 * repository satisfies it with the item schema its own import route validates with.
 */
export interface DataSection<T = unknown> {
  item: v.GenericSchema<unknown, T>;
  exportAll(): T[];
  /** Runs inside the caller's transaction; `replace` also deletes what the items do not name. */
  importAll(items: readonly T[], mode: ImportMode): ImportCounts;
  /** Published after an import, e.g. "dictionary.changed" (with `action: "import"` and the counts). */
  event: EventType;
}

/** Erases a section's item type; importAll only ever receives items its own schema produced. */
export function defineSection<T>(section: DataSection<T>): DataSection {
  return {
    item: section.item,
    event: section.event,
    exportAll: () => section.exportAll(),
    importAll: (items, mode) => section.importAll(items as readonly T[], mode),
  };
}

const settingsMapSchema = jsonObject("settings must be an object of key to value");

export const exportFormat = "svc-export";
export const exportVersion = 1;

export interface DataTransfer {
  /** Settings (secrets excluded) and every section, as one JSON document. */
  exportDocument(): Record<string, unknown>;
  /** Validates the whole document, then restores it in one transaction: all of it or none. */
  importDocument(document: unknown, mode: ImportMode): Record<string, unknown>;
  /** The document's schema, for the API reference. */
  readonly schema: v.GenericSchema;
}

export function createDataTransfer(deps: {
  db: Database;
  settings: SettingsService;
  sections: Record<string, DataSection>;
  events: EventBus;
  version: string;
  now?: () => Date;
}): DataTransfer {
  const { db, settings, sections, events } = deps;
  const now = deps.now ?? (() => new Date());
  const lists = Object.fromEntries(
    Object.entries(sections).map(([name, section]) => [name, v.optional(v.array(section.item))]),
  );
  const schema = v.object({
    format: v.literal(exportFormat, `format must be "${exportFormat}"`),
    version: v.literal(
      exportVersion,
      `version must be ${exportVersion}; this svc cannot read documents from a newer release`,
    ),
    settings: v.optional(settingsMapSchema),
    ...lists,
  });

  function restore(document: v.InferOutput<typeof schema>, mode: ImportMode) {
    const lists: Record<string, ImportCounts> = {};
    for (const [name, section] of Object.entries(sections)) {
      const items = (document as Record<string, unknown>)[name];
      if (Array.isArray(items)) lists[name] = section.importAll(items, mode);
    }
    // Settings go last: their change listeners (the retention purge) run once nothing else can fail.
    const values = document.settings;
    const restored = values ? settings.importValues(values, { replace: mode === "replace" }) : undefined;
    return { lists, restored };
  }

  // Published after the commit, so no client hears of a change that was rolled back.
  function announce(mode: ImportMode, lists: Record<string, ImportCounts>, restored?: SettingsImport) {
    for (const [name, counts] of Object.entries(lists)) {
      const event = sections[name]?.event;
      if (event) events.publish(event, { action: "import", mode, ...counts });
    }
    for (const key of restored?.reset ?? []) {
      if (!isKnownSetting(key)) events.publish("settings.deleted", { key });
    }
    const changedKeys = [
      ...(restored?.reset ?? []).filter(isKnownSetting),
      ...(restored?.imported ?? []),
      ...(restored?.cleared ?? []),
    ];
    for (const key of changedKeys) {
      events.publish("settings.changed", { key, isDefault: settings.view(key).isDefault });
    }
    events.publish("data.imported", {
      mode,
      sections: [...Object.keys(lists), ...(restored ? ["settings"] : [])],
    });
  }

  return {
    schema,
    exportDocument() {
      const document: Record<string, unknown> = {
        format: exportFormat,
        version: exportVersion,
        exportedAt: now().toISOString(),
        app: { name: "svc", version: deps.version },
        settings: settings.exportValues(),
      };
      for (const [name, section] of Object.entries(sections)) document[name] = section.exportAll();
      return document;
    },
    importDocument(input, mode) {
      const document = parseOrThrow(schema, input, "invalid_import", "import document");
      const { lists, restored } = db.transaction(() => restore(document, mode)).immediate();
      announce(mode, lists, restored);
      return { mode, ...lists, ...(restored ? { settings: restored } : {}) };
    },
  };
}
