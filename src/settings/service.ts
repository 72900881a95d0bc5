import * as v from "valibot";
import type { SettingsRepo } from "../db/settings-repo.ts";
import { badRequest, isAppError, notFound } from "../errors.ts";
import type { EventBus } from "../events.ts";
import type { Logger } from "../logger.ts";
import { keepUserinfo, maskUserinfo, originOf, secretsBoundTo } from "./bound-secrets.ts";
import {
  isKnownSetting,
  retiredSettings,
  type SettingKey,
  type SettingValue,
  settingKeys,
  settingsCatalog,
} from "./catalog.ts";
import {
  assertSettingKey,
  encodeSetting,
  maxCustomKeys,
  settingDef,
  settingLabel,
  tooManySettings,
} from "./validate.ts";

/**
 * One setting as the API shows it; the schema is the type. Secrets appear only as
 * `{"set": true|false}`. `cleared`: the secrets this write removed, because the URL they are sent
 * to moved to another origin.
 */
export const settingViewSchema = v.object({
  key: v.string(),
  value: v.unknown(),
  isDefault: v.boolean(),
  updatedAt: v.nullable(v.string()),
  known: v.boolean(),
  secret: v.boolean(),
  cleared: v.optional(v.array(v.string())),
});
export type SettingView = v.InferOutput<typeof settingViewSchema>;

export interface SettingsService {
  /** The effective value of a known setting (stored or default), typed; served from memory. */
  get<K extends SettingKey>(key: K): SettingValue<K>;
  /** Every known setting (secrets masked) plus every stored client preference. */
  list(): Record<string, unknown>;
  /** One setting as clients see it; 404 for a client preference that is not stored. */
  view(key: string): SettingView;
  /**
   * Validates and stores a value, then publishes `settings.changed`. A URL that moves to another
   * origin clears the secrets bound to it (`cleared` in the answer).
   */
  set(key: string, value: unknown): SettingView;
  /**
   * Several settings at once: every value is checked first, and nothing is stored when one is
   * refused (400 invalid_setting naming each refused one by its label). `reset` puts known
   * settings back to their defaults and deletes client preferences. Publishes as `set` and `reset`.
   */
  update(change: SettingsUpdate): { items: SettingView[]; cleared: string[] };
  /** Resets a known setting to its default or deletes a client preference; returns the secrets that cleared. */
  reset(key: string): string[];
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

export interface SettingsUpdate {
  values?: Record<string, unknown>;
  reset?: readonly string[];
}

/** One setting an update refused, as the error's `details.settings` lists it. */
export interface SettingRefusal {
  key: string;
  message: string;
  issues?: unknown;
  accepted?: string;
}

export interface SettingsImport {
  imported: string[];
  reset: string[];
  skipped: string[];
  /** Secrets removed because an imported or reset URL moved to another origin. */
  cleared: string[];
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
    return maskUserinfo(entry ? entry.value : def?.default);
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

  /**
   * Runs a change of settings; then every secret bound to a URL in `keys` whose origin the change
   * moved is removed, unless the change wrote it too (`written`: entered for the new URL). Returns
   * the removed secrets; `announce` logs and publishes each (an import announces after its
   * transaction commits instead).
   */
  function keepingSecretsBound(
    keys: readonly string[],
    change: () => void,
    announce = true,
    written: readonly string[] = [],
  ): string[] {
    const watched = keys.filter((key) => secretsBoundTo(key).length > 0);
    const before = new Map(watched.map((key) => [key, originOf(stored().get(key)?.value)]));
    change();
    const cleared: string[] = [];
    for (const key of watched) {
      const after = originOf(stored().get(key)?.value);
      if (after === before.get(key)) continue;
      for (const secret of secretsBoundTo(key)) {
        if (written.includes(secret) || !repo.remove(secret)) continue;
        changed(secret);
        cleared.push(secret);
        if (!announce) continue;
        logger.info("secret cleared: the URL it is sent to moved to another origin", {
          key: secret,
          url: key,
          from: before.get(key),
          to: after,
        });
        events.publish("settings.changed", { key: secret, isDefault: true });
      }
    }
    return cleared;
  }

  function write(key: string, value: unknown): void {
    const { json } = encodeSetting(key, value);
    if (!isKnownSetting(key) && !stored().has(key)) {
      if (repo.countWhereKeyNotIn(settingKeys) >= maxCustomKeys) throw tooManySettings();
    }
    repo.save(key, json, now().toISOString());
  }

  /** The values an update may store, each checked; every refusal is collected before any throw. */
  function checkUpdate(values: Record<string, unknown>, reset: readonly string[]): [string, unknown][] {
    const refusals: SettingRefusal[] = [];
    const entries = Object.entries(values).map(([key, value]): [string, unknown] => {
      assertSettingKey(key);
      if (reset.includes(key)) {
        throw badRequest("invalid_setting", `${settingLabel(key)} cannot be both set and reset.`, { key });
      }
      const kept = keepUserinfo(value, stored().get(key)?.value);
      try {
        encodeSetting(key, kept);
      } catch (error) {
        if (!(isAppError(error) && error.code === "invalid_setting")) throw error;
        const details = error.details as Omit<SettingRefusal, "message">;
        refusals.push({ ...details, key, message: error.message });
      }
      return [key, kept];
    });
    for (const key of reset) assertSettingKey(key);
    if (refusals.length > 0) {
      const messages = refusals.map((refusal) => refusal.message).join(" ");
      throw badRequest("invalid_setting", `Nothing was saved. ${messages}`, { settings: refusals });
    }
    const added = entries.filter(([key]) => !isKnownSetting(key) && !stored().has(key)).length;
    if (added > 0 && repo.countWhereKeyNotIn(settingKeys) + added > maxCustomKeys) throw tooManySettings();
    return entries;
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
      const cleared = keepingSecretsBound([key], () => {
        write(key, keepUserinfo(value, stored().get(key)?.value));
        changed(key);
      });
      const result = view(key);
      events.publish("settings.changed", { key, isDefault: false });
      return cleared.length > 0 ? { ...result, cleared } : result;
    },
    update({ values = {}, reset = [] }) {
      const entries = checkUpdate(values, reset);
      const keys = [...entries.map(([key]) => key), ...reset];
      const removed: string[] = [];
      const written = entries.map(([key]) => key);
      const change = () => {
        for (const [key, value] of entries) {
          write(key, value);
          changed(key);
        }
        for (const key of reset.filter((key) => repo.remove(key))) {
          removed.push(key);
          changed(key);
        }
      };
      const cleared = keepingSecretsBound(keys, change, true, written);
      for (const [key] of entries) events.publish("settings.changed", { key, isDefault: false });
      for (const key of removed) {
        if (isKnownSetting(key)) events.publish("settings.changed", { key, isDefault: true });
        else events.publish("settings.deleted", { key });
      }
      const items = keys.filter((key) => isKnownSetting(key) || stored().has(key)).map(view);
      return { items, cleared };
    },
    reset(key) {
      assertSettingKey(key);
      if (!isKnownSetting(key)) {
        if (!repo.remove(key)) throw notFound(`No setting "${key}" is stored.`, { key });
        changed(key);
        events.publish("settings.deleted", { key });
        return [];
      }
      return keepingSecretsBound([key], () => {
        if (!repo.remove(key)) return;
        changed(key);
        events.publish("settings.changed", { key, isDefault: true });
      });
    },
    exportValues() {
      const values: Record<string, unknown> = {};
      for (const [key, entry] of stored()) if (!settingDef(key)?.secret) values[key] = entry.value;
      return values;
    },
    importValues(values, options = {}) {
      // Secrets are never exported; a retired setting in an older backup is left out, not refused.
      const skip = (key: string) => settingDef(key)?.secret === true || Object.hasOwn(retiredSettings, key);
      const entries = Object.entries(values).filter(([key]) => !skip(key));
      for (const [key, value] of entries) encodeSetting(key, value);
      const reset = options.replace
        ? [...stored().keys()].filter((key) => !skip(key) && !Object.hasOwn(values, key))
        : [];
      const imported = entries.map(([key]) => key);
      const cleared = keepingSecretsBound(
        [...reset, ...imported],
        () => {
          for (const key of reset) repo.remove(key);
          for (const [key, value] of entries) write(key, value);
          for (const key of [...reset, ...imported]) changed(key);
        },
        false,
      );
      return { imported, reset, skipped: Object.keys(values).filter(skip), cleared };
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
