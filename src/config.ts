import { dirname, join, resolve } from "node:path";
import * as v from "valibot";
import { defaultModelBaseUrl } from "./dictation/engines/whisper/models/presets.ts";
import type { BodyLimits } from "./http/body-guard.ts";
import { parseOriginList } from "./http/origin.ts";

/** Parses "64mb", "512k", "1048576" into bytes; undefined when the text is not a size. */
export function parseByteSize(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?\s*$/i.exec(text);
  if (!match?.[1]) return undefined;
  const unit = (match[2] ?? "b").toLowerCase()[0] ?? "b";
  const scale = { b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[unit] ?? 1;
  return Math.floor(Number(match[1]) * scale);
}

const integer = (name: string, min: number, max: number, fallback: number) =>
  v.pipe(
    v.optional(v.string(), String(fallback)),
    v.trim(),
    v.regex(/^\d+$/, `${name} must be a whole number`),
    v.transform(Number),
    v.minValue(min, `${name} must be at least ${min}`),
    v.maxValue(max, `${name} must be at most ${max}`),
  );

const byteSize = (name: string, fallback: string, min: number) =>
  v.pipe(
    v.optional(v.string(), fallback),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const bytes = parseByteSize(dataset.value);
      if (bytes === undefined) {
        addIssue({ message: `${name} must be a size such as 26214400, 512k or 64mb` });
        return NEVER;
      }
      return bytes;
    }),
    v.minValue(min, `${name} must be at least ${min} bytes`),
  );

const csv = v.pipe(
  v.optional(v.string(), ""),
  v.transform((text) =>
    text
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  ),
);

const hostName = /^(\.?[a-z0-9]([a-z0-9-]*[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/** Every setting that comes from the environment, with its default. Parsed once at start. */
export const envSchema = v.object({
  SVC_DB_PATH: v.pipe(
    v.optional(v.string(), ""),
    v.trim(),
    v.nonEmpty("SVC_DB_PATH is required: set it to the database file path, e.g. SVC_DB_PATH=./data/svc.db"),
  ),
  PORT: integer("PORT", 0, 65535, 4649),
  HOST: v.pipe(v.optional(v.string(), "0.0.0.0"), v.trim(), v.nonEmpty("HOST must not be empty")),
  SVC_ENV: v.optional(
    v.picklist(["production", "development", "test"], "SVC_ENV must be production, development or test"),
    "production",
  ),
  DO_NOT_TRACK: v.optional(v.string(), ""),
  SVC_TRUSTED_ORIGINS: v.pipe(
    csv,
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const parsed = parseOriginList(dataset.value);
      if (parsed.invalid.length > 0) {
        addIssue({
          message: `SVC_TRUSTED_ORIGINS entries must be origins like https://dictation.example.com (scheme, host, optional port, nothing else): ${parsed.invalid.join(", ")}`,
        });
        return NEVER;
      }
      return parsed.origins;
    }),
  ),
  SVC_ALLOWED_HOSTS: v.pipe(
    csv,
    v.transform((items) => items.map((item) => item.toLowerCase())),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const invalid = dataset.value.filter((item) => !hostName.test(item));
      if (invalid.length > 0) {
        addIssue({
          message: `SVC_ALLOWED_HOSTS entries must be host names like svc.lan or .example.com (no scheme, port or path): ${invalid.join(", ")}`,
        });
      }
    }),
  ),
  SVC_LOG_LEVEL: v.optional(
    v.picklist(["debug", "info", "warn", "error"], "SVC_LOG_LEVEL must be debug, info, warn or error"),
    "info",
  ),
  SVC_MAX_BODY_SIZE: byteSize("SVC_MAX_BODY_SIZE", "64mb", 1024),
  SVC_MAX_JSON_SIZE: byteSize("SVC_MAX_JSON_SIZE", "1mb", 1024),
  SVC_MAX_IMPORT_SIZE: byteSize("SVC_MAX_IMPORT_SIZE", "32mb", 1024),
  SVC_BODY_TIMEOUT_MS: integer("SVC_BODY_TIMEOUT_MS", 100, 3_600_000, 120_000),
  SVC_BODY_MIN_RATE: byteSize("SVC_BODY_MIN_RATE", "1kb", 0),
  SVC_MAX_UPLOADS: integer("SVC_MAX_UPLOADS", 1, 100_000, 32),
  SVC_SHUTDOWN_TIMEOUT_MS: integer("SVC_SHUTDOWN_TIMEOUT_MS", 0, 600_000, 10_000),
  SVC_PLUGINS_DIR: v.optional(v.string()),
  SVC_PLUGIN_SETUP_TIMEOUT_MS: integer("SVC_PLUGIN_SETUP_TIMEOUT_MS", 100, 600_000, 10_000),
  SVC_MODELS_DIR: v.optional(v.string()),
  SVC_NPM_REGISTRY: v.pipe(
    v.optional(v.string(), "https://registry.npmjs.org"),
    v.url("SVC_NPM_REGISTRY must be a URL such as https://registry.npmjs.org"),
  ),
  SVC_MODEL_BASE_URL: v.pipe(
    v.optional(v.string(), defaultModelBaseUrl),
    v.url(
      "SVC_MODEL_BASE_URL must be a URL whose folder holds the ggml-*.bin files, e.g. https://mirror.lan/whisper",
    ),
  ),
});

export type Config = {
  dbPath: string;
  port: number;
  host: string;
  env: "production" | "development" | "test";
  doNotTrack: boolean;
  trustedOrigins: ReadonlySet<string>;
  allowedHosts: readonly string[];
  logLevel: "debug" | "info" | "warn" | "error";
  /** Request body sizes, deadline, minimum rate and how many are received at once. */
  body: BodyLimits;
  shutdownTimeoutMs: number;
  pluginsDir: string;
  /** Longest a plugin's setup() may take; start waits no longer for a plugin that hangs. */
  pluginSetupTimeoutMs: number;
  modelsDir: string;
  npmRegistry: string;
  /** Speech model downloads: `<modelBaseUrl>/ggml-base.en.bin`. */
  modelBaseUrl: string;
};

/** Thrown with every problem found, so the operator fixes them all at once. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(problems.join("; "));
    this.name = "ConfigError";
    this.problems = problems;
  }
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  const result = v.safeParse(envSchema, env, { abortPipeEarly: true });
  if (!result.success) {
    throw new ConfigError(result.issues.map((issue) => issue.message));
  }
  const out = result.output;
  const dbPath = out.SVC_DB_PATH === ":memory:" ? ":memory:" : resolve(out.SVC_DB_PATH);
  const dataDir = dbPath === ":memory:" ? resolve("data") : dirname(dbPath);
  return {
    dbPath,
    port: out.PORT,
    host: out.HOST,
    env: out.SVC_ENV,
    doNotTrack: out.DO_NOT_TRACK.trim() !== "" && out.DO_NOT_TRACK.trim() !== "0",
    trustedOrigins: new Set(out.SVC_TRUSTED_ORIGINS),
    allowedHosts: out.SVC_ALLOWED_HOSTS,
    logLevel: out.SVC_LOG_LEVEL,
    body: {
      maxUploadBytes: out.SVC_MAX_BODY_SIZE,
      maxJsonBytes: out.SVC_MAX_JSON_SIZE,
      maxImportBytes: out.SVC_MAX_IMPORT_SIZE,
      timeoutMs: out.SVC_BODY_TIMEOUT_MS,
      minBytesPerSecond: out.SVC_BODY_MIN_RATE,
      maxConcurrent: out.SVC_MAX_UPLOADS,
    },
    shutdownTimeoutMs: out.SVC_SHUTDOWN_TIMEOUT_MS,
    pluginsDir: resolve(out.SVC_PLUGINS_DIR?.trim() || join(dataDir, "plugins")),
    pluginSetupTimeoutMs: out.SVC_PLUGIN_SETUP_TIMEOUT_MS,
    modelsDir: resolve(out.SVC_MODELS_DIR?.trim() || join(dataDir, "models")),
    npmRegistry: out.SVC_NPM_REGISTRY.replace(/\/+$/, ""),
    modelBaseUrl: out.SVC_MODEL_BASE_URL.replace(/\/+$/, ""),
  };
}
