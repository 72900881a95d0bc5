import * as v from "valibot";
import type { SettingsRepo } from "../db/settings-repo.ts";
import { notFound } from "../errors.ts";
import type { EventBus } from "../events.ts";
import type { Logger } from "../logger.ts";
import {
  isKnownSetting,
  type SettingKey,
  type SettingValue,
  settingKeys,
  settingsCatalog,
} from "./catalog.ts";
import { assertSettingKey, encodeSetting, maxCustomKeys, settingDef, tooManySettings } from "./validate.ts";

/** How a setting is shown to clients: secrets appear only as `{"set": true|false}`. */
/** One setting as the API shows it; the schema is the type. */
export const settingViewSchema = v.object({
  key: v.string(),
  value: v.unknown(),
  isDefault: v.boolean(),
  updatedAt: v.nullable(v.string()),
  known: v.boolean(),
  secret: v.boolean(),
});
export type SettingView = v.InferOutput<typeof settingViewSchema>;

export interface SettingsService {
  /** The effective value of a known setting (stored or default), typed; served from memory. */
  get<K extends SettingKey>(key: K): SettingValue<K>;
  /** Every known setting (secrets masked) plus every stored client preference. */
  list(): Record<string, unknown>;
  /** One setting as clients see it; 404 for a client preference that is not stored. */
  view(key: string): SettingView;
  /** Validates and stores a value, then publishes `settings.changed`. */
  set(key: string, value: unknown): SettingView;
  /** Resets a known setting to its default or deletes a client preference. */
  reset(key: string): void;
  /** Stored, non-secret values, for export. */
  exportValues(): Record<string, unknown>;
  /**
   * Validates every value first, then writes them all; run it inside the caller's transaction.
   * `replace` also resets stored settings the values do not name. Secrets are never imported or
   * reset: they are reported as skipped.
   */
  importValues(values: Record<string, unknown>, options?: { replace?: boolean }): SettingsImport;
  /** Called after every write with the key that changed. */
  onChange(listener: (key: string) => void): () => void;
}

export interface SettingsImport {
  imported: string[];
  reset: string[];
  skipped: string[];
}

interface Stored {
  value: unknown;
  updatedAt: string;
}

export const secretMask = (stored: boolean) => ({ set: stored });

export function createSettingsService(deps: {
  repo: SettingsRepo;
  events: EventBus;
  logger: Logger;
  now?: () => Date;
}): SettingsService {
  const { repo, events, logger } = deps;
  const now = deps.now ?? (() => new Date());
  const listeners = new Set<(key: string) => void>();
  let cache: Map<string, Stored> | null = null;

  // Values written by an older svc may no longer pass the schema: they are ignored, not fatal.
  function load(): Map<string, Stored> {
    const map = new Map<string, Stored>();
    for (const row of repo.listStored()) {
      let value: unknown;
      try {
        value = JSON.parse(row.value);
      } catch {
        logger.warn("ignoring a stored setting that is not JSON", { key: row.key });
        continue;
      }
      const def = settingDef(row.key);
      if (def) {
        const result = v.safeParse(def.schema, value);
        if (!result.success) {
          logger.warn("ignoring a stored setting that is no longer valid; using its default", {
            key: row.key,
          });
          continue;
        }
        value = result.output;
      }
      map.set(row.key, { value, updatedAt: row.updated_at });
    }
    return map;
  }

  const stored = () => {
    cache ??= load();
    return cache;
  };

  function changed(key: string): void {
    cache = null;
    for (const listener of listeners) listener(key);
  }

  function publicValue(key: string, entry: Stored | undefined): unknown {
    const def = settingDef(key);
    if (def?.secret) return secretMask(entry !== undefined && entry.value !== null);
    return entry ? entry.value : def?.default;
  }

  function view(key: string): SettingView {
    assertSettingKey(key);
    const entry = stored().get(key);
    const known = isKnownSetting(key);
    if (!known && !entry) throw notFound(`No setting "${key}" is stored.`, { key });
    return {
      key,
      value: publicValue(key, entry),
      isDefault: entry === undefined,
      updatedAt: entry?.updatedAt ?? null,
      known,
      secret: settingDef(key)?.secret === true,
    };
  }

  function write(key: string, value: unknown): void {
    const { json } = encodeSetting(key, value);
    if (!isKnownSetting(key) && !stored().has(key)) {
      if (repo.countWhereKeyNotIn(settingKeys) >= maxCustomKeys) throw tooManySettings();
    }
    repo.save(key, json, now().toISOString());
  }

  return {
    get<K extends SettingKey>(key: K): SettingValue<K> {
      const entry = stored().get(key);
      return (entry ? entry.value : settingsCatalog[key].default) as SettingValue<K>;
    },
    list() {
      const map: Record<string, unknown> = {};
      for (const key of settingKeys) map[key] = publicValue(key, stored().get(key));
      for (const [key, entry] of stored()) if (!isKnownSetting(key)) map[key] = entry.value;
      return map;
    },
    view,
    set(key, value) {
      write(key, value);
      changed(key);
      const result = view(key);
      events.publish("settings.changed", { key, isDefault: false });
      return result;
    },
    reset(key) {
      assertSettingKey(key);
      const removed = repo.remove(key);
      if (!isKnownSetting(key)) {
        if (!removed) throw notFound(`No setting "${key}" is stored.`, { key });
        changed(key);
        events.publish("settings.deleted", { key });
        return;
      }
      if (!removed) return;
      changed(key);
      events.publish("settings.changed", { key, isDefault: true });
    },
    exportValues() {
      const values: Record<string, unknown> = {};
      for (const [key, entry] of stored()) if (!settingDef(key)?.secret) values[key] = entry.value;
      return values;
    },
    importValues(values, options = {}) {
      const isSecret = (key: string) => settingDef(key)?.secret === true;
      const entries = Object.entries(values).filter(([key]) => !isSecret(key));
      for (const [key, value] of entries) encodeSetting(key, value);
      const reset = options.replace
        ? [...stored().keys()].filter((key) => !isSecret(key) && !Object.hasOwn(values, key))
        : [];
      for (const key of reset) repo.remove(key);
      for (const [key, value] of entries) write(key, value);
      const imported = entries.map(([key]) => key);
      for (const key of [...reset, ...imported]) changed(key);
      return { imported, reset, skipped: Object.keys(values).filter(isSecret) };
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
