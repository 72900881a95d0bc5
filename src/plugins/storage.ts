import type { PluginStorageRepo } from "../db/plugin-storage-repo.ts";
import { reasonOf } from "../errors.ts";

export type PluginStorageErrorCode = "value_too_large" | "storage_full" | "invalid_key" | "invalid_value";

/** Thrown by a plugin's storage for a refused write; plugins catch it and read `code`. */
export class PluginStorageError extends Error {
  readonly code: PluginStorageErrorCode;
  constructor(code: PluginStorageErrorCode, message: string) {
    super(message);
    this.name = "PluginStorageError";
    this.code = code;
  }
}

export interface PluginStorage {
  get<T = unknown>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<boolean>;
  keys(): Promise<string[]>;
}

export interface StorageLimits {
  maxValueBytes: number;
  maxTotalBytes: number;
}

export const defaultStorageLimits: StorageLimits = {
  maxValueBytes: 256 * 1024,
  maxTotalBytes: 8 * 1024 * 1024,
};

const maxKeyLength = 200;

function checkKey(key: unknown): string {
  if (typeof key !== "string" || key.length === 0 || key.length > maxKeyLength) {
    throw new PluginStorageError("invalid_key", `storage keys are strings of 1-${maxKeyLength} characters`);
  }
  return key;
}

function serialise(value: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    const reason = reasonOf(error);
    throw new PluginStorageError("invalid_value", `the value cannot be stored as JSON: ${reason}`);
  }
  if (json === undefined) {
    throw new PluginStorageError(
      "invalid_value",
      "the value cannot be stored as JSON (use delete() to remove a key)",
    );
  }
  return json;
}

/**
 * Storage bound to one plugin by the host: the plugin name is fixed here, never taken from the
 * plugin, so no key a plugin can choose reaches another plugin's values.
 */
export function createPluginStorage(
  repo: PluginStorageRepo,
  plugin: string,
  limits: StorageLimits = defaultStorageLimits,
  now: () => Date = () => new Date(),
): PluginStorage {
  const encoder = new TextEncoder();
  return {
    async get<T>(key: string) {
      const text = repo.find(plugin, checkKey(key));
      return text === null ? undefined : (JSON.parse(text) as T);
    },
    async set(key, value) {
      checkKey(key);
      const json = serialise(value);
      const bytes = encoder.encode(json).length;
      if (bytes > limits.maxValueBytes) {
        throw new PluginStorageError(
          "value_too_large",
          `the value is ${bytes} bytes of JSON; at most ${limits.maxValueBytes} may be stored under one key`,
        );
      }
      if (repo.usedBytes(plugin, key) + bytes > limits.maxTotalBytes) {
        throw new PluginStorageError(
          "storage_full",
          `a plugin may store at most ${limits.maxTotalBytes} bytes in all`,
        );
      }
      repo.save(plugin, key, json, now().toISOString());
    },
    async delete(key) {
      return repo.remove(plugin, checkKey(key));
    },
    async keys() {
      return repo.keys(plugin);
    },
  };
}
