import { dirname, resolve } from "node:path";
import * as v from "valibot";
import { parseCidrList } from "./addresses.ts";
import { autoDevice, type DeviceChoice, parseDeviceChoice } from "./dictation/engines/device-choice.ts";
import type { OperatorLimits } from "./dictation/live/limits.ts";
import { parseOriginList } from "./http/origin.ts";
import { defaultWyomingAllow } from "./wyoming/allow.ts";

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

/** A port that may be left unset (the listener is then off); "0" picks a free one. */
const optionalPort = (name: string) =>
  v.pipe(
    v.optional(v.string(), ""),
    v.trim(),
    v.regex(/^\d*$/, `${name} must be a port number (0 picks a free one), or unset to turn the listener off`),
    v.transform((text) => (text === "" ? null : Number(text))),
    v.check((port) => port === null || port <= 65535, `${name} must be at most 65535`),
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

const whisperDeviceSchema = v.pipe(
  v.optional(v.string(), "auto"),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const choice = parseDeviceChoice(dataset.value);
    if (!choice) {
      addIssue({
        message:
          "SVC_WHISPER_DEVICE must be auto, cpu, vulkan, vulkan:N, cuda or cuda:N (N: the device's number)",
      });
      return NEVER;
    }
    return choice;
  }),
);
const whisperDeviceHelp =
  "where whisper runs: auto (a GPU through the CUDA or Vulkan build when one can be used, else the CPU; default), cpu, vulkan, vulkan:N, cuda, cuda:N (device N)";

/** SVC_WHISPER_DEVICE alone, for `svc version` (which needs no database): `auto` when unset or invalid. */
export function whisperDeviceOf(env: Record<string, string | undefined>): DeviceChoice {
  const result = v.safeParse(whisperDeviceSchema, env.SVC_WHISPER_DEVICE);
  return result.success ? result.output : autoDevice;
}

const described = <S extends v.GenericSchema>(schema: S, text: string) => v.pipe(schema, v.description(text));

/**
 * Every setting that comes from the environment, with its default and its line in `svc help
 * serve`. Parsed once at start. A variable is written here and in docs/configuration.md, nowhere else.
 */
export const envSchema = v.object({
  SVC_DB_PATH: described(
    v.pipe(
      v.optional(v.string(), ""),
      v.trim(),
      v.nonEmpty("SVC_DB_PATH is required: set it to the database file path, e.g. SVC_DB_PATH=./data/svc.db"),
    ),
    "database file (required), e.g. ./data/svc.db",
  ),
  PORT: described(integer("PORT", 0, 65535, 4649), "port to listen on (default 4649)"),
  HOST: described(
    v.pipe(v.optional(v.string(), "0.0.0.0"), v.trim(), v.nonEmpty("HOST must not be empty")),
    "interface to bind (default 0.0.0.0)",
  ),
  SVC_WYOMING_PORT: described(
    optionalPort("SVC_WYOMING_PORT"),
    "Wyoming speech-to-text port for Home Assistant, usually 10300 (default: off)",
  ),
  SVC_WYOMING_HOST: described(
    v.pipe(v.optional(v.string(), ""), v.trim()),
    "interface the Wyoming listener binds (default: HOST)",
  ),
  SVC_ENV: described(
    v.optional(
      v.picklist(["production", "development", "test"], "SVC_ENV must be production, development or test"),
      "production",
    ),
    "production | development | test (default production)",
  ),
  DO_NOT_TRACK: described(v.optional(v.string(), ""), "accepted for convention; svc never sends telemetry"),
  SVC_TRUSTED_ORIGINS: described(
    v.pipe(
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
    "extra origins allowed to change state, comma-separated",
  ),
  SVC_FREESTYLE_DESKTOP: described(
    v.pipe(
      v.optional(v.string(), ""),
      v.trim(),
      v.picklist(["", "0", "1"], "SVC_FREESTYLE_DESKTOP must be 1 (on) or 0 (off)"),
      v.transform((text) => text === "1"),
    ),
    "1: speak the Freestyle desktop app's dialect (CORS for app://renderer, /stream, health name freestyle) (default off)",
  ),
  SVC_ALLOWED_HOSTS: described(
    v.pipe(
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
    "host names the server may be reached by, comma-separated",
  ),
  SVC_AUTH: described(
    v.optional(
      v.picklist(
        ["", "off", "keys", "keys-everywhere"],
        "SVC_AUTH must be off, keys (a key from every client but this machine's) or keys-everywhere",
      ),
      "",
    ),
    "off | keys | keys-everywhere: who needs a key (default: the console's choice, else off)",
  ),
  SVC_AUTH_MAX_FAILURES: described(
    integer("SVC_AUTH_MAX_FAILURES", 1, 100_000, 10),
    "wrong keys or codes one address may send a minute before it waits (429) (default 10)",
  ),
  SVC_TRUSTED_PROXIES: described(
    v.pipe(
      v.optional(v.string(), ""),
      v.rawTransform(({ dataset, addIssue, NEVER }) => {
        const parsed = parseCidrList(dataset.value);
        if (parsed.invalid.length > 0) {
          addIssue({
            message: `SVC_TRUSTED_PROXIES entries must be addresses or CIDRs such as 127.0.0.1 or 10.0.0.0/8: ${parsed.invalid.join(", ")}`,
          });
          return NEVER;
        }
        return parsed.ranges;
      }),
    ),
    "proxies (addresses or CIDRs, comma-separated) whose X-Forwarded-For/Forwarded client address svc believes for the throttle and the logs (default none: the peer's address counts)",
  ),
  SVC_SESSION_IDLE_DAYS: described(
    integer("SVC_SESSION_IDLE_DAYS", 1, 3650, 30),
    "a console session unused this many days ends (default 30)",
  ),
  SVC_SESSION_MAX_DAYS: described(
    integer("SVC_SESSION_MAX_DAYS", 1, 3650, 180),
    "a console session ends this many days after its login, however used (default 180)",
  ),
  SVC_SESSIONS_PER_KEY: described(
    integer("SVC_SESSIONS_PER_KEY", 1, 10_000, 20),
    "console sessions one key may hold; past it the oldest ends (default 20)",
  ),
  SVC_WYOMING_ALLOW: described(
    v.pipe(
      v.optional(v.string(), defaultWyomingAllow.join(",")),
      v.rawTransform(({ dataset, addIssue, NEVER }) => {
        const parsed = parseCidrList(dataset.value);
        if (parsed.invalid.length > 0) {
          addIssue({
            message: `SVC_WYOMING_ALLOW entries must be addresses or CIDRs such as 192.168.1.0/24 or fd00::/8: ${parsed.invalid.join(", ")}`,
          });
          return NEVER;
        }
        return parsed.ranges;
      }),
    ),
    "client addresses (CIDRs, comma-separated) the Wyoming listener accepts, all others closed at accept (default: loopback and the private ranges)",
  ),
  SVC_LOG_LEVEL: described(
    v.optional(
      v.picklist(["debug", "info", "warn", "error"], "SVC_LOG_LEVEL must be debug, info, warn or error"),
      "info",
    ),
    "debug | info | warn | error (default info)",
  ),
  SVC_MAX_BODY_SIZE: described(
    byteSize("SVC_MAX_BODY_SIZE", "64mb", 1024),
    "largest audio upload or plugin route body (default 64mb)",
  ),
  SVC_MAX_JSON_SIZE: described(
    byteSize("SVC_MAX_JSON_SIZE", "1mb", 1024),
    "largest body of every other route (default 1mb)",
  ),
  SVC_MAX_IMPORT_SIZE: described(
    byteSize("SVC_MAX_IMPORT_SIZE", "32mb", 1024),
    "largest import body (default 32mb)",
  ),
  SVC_BODY_TIMEOUT_MS: described(
    integer("SVC_BODY_TIMEOUT_MS", 100, 3_600_000, 120_000),
    "a body must arrive within this (default 120000), else 408",
  ),
  SVC_BODY_MIN_RATE: described(
    byteSize("SVC_BODY_MIN_RATE", "1kb", 0),
    "bytes per second a body must keep up, 0 for off (default 1kb)",
  ),
  SVC_MAX_UPLOADS: described(
    integer("SVC_MAX_UPLOADS", 1, 100_000, 32),
    "upload and import bodies received at once; more get 503 busy (default 32)",
  ),
  SVC_MAX_JSON_BODIES: described(
    integer("SVC_MAX_JSON_BODIES", 1, 100_000, 32),
    "JSON bodies received at once, apart from uploads; more get 503 busy (default 32)",
  ),
  SVC_DICTATE_MAX_FRAME_SIZE: described(
    v.pipe(
      byteSize("SVC_DICTATE_MAX_FRAME_SIZE", "256kb", 1024),
      v.maxValue(1_048_576, "SVC_DICTATE_MAX_FRAME_SIZE must be at most 1mb"),
    ),
    "largest live-dictation WebSocket message (default 256kb)",
  ),
  SVC_DICTATE_MAX_SESSIONS: described(
    integer("SVC_DICTATE_MAX_SESSIONS", 1, 1024, 4),
    "live dictations at once over /api/dictate; one more is refused busy (default 4)",
  ),
  SVC_WYOMING_MAX_CONNECTIONS: described(
    integer("SVC_WYOMING_MAX_CONNECTIONS", 1, 4096, 8),
    "Wyoming connections at once (default 8)",
  ),
  SVC_WYOMING_MAX_HEADER_SIZE: described(
    byteSize("SVC_WYOMING_MAX_HEADER_SIZE", "8kb", 256),
    "longest Wyoming event header line (default 8kb)",
  ),
  SVC_WYOMING_MAX_DATA_SIZE: described(
    byteSize("SVC_WYOMING_MAX_DATA_SIZE", "64kb", 256),
    "largest data_length a Wyoming event may declare (default 64kb)",
  ),
  SVC_WYOMING_MAX_PAYLOAD_SIZE: described(
    byteSize("SVC_WYOMING_MAX_PAYLOAD_SIZE", "256kb", 1024),
    "largest payload_length (audio) a Wyoming event may declare (default 256kb)",
  ),
  SVC_WYOMING_MAX_UNREAD_SIZE: described(
    byteSize("SVC_WYOMING_MAX_UNREAD_SIZE", "1mb", 65_536),
    "answers svc holds for a Wyoming client that does not read them (default 1mb)",
  ),
  SVC_SHUTDOWN_TIMEOUT_MS: described(
    integer("SVC_SHUTDOWN_TIMEOUT_MS", 0, 600_000, 10_000),
    "how long in-flight requests may finish on SIGTERM (default 10000)",
  ),
  SVC_PLUGINS_DIR: described(
    v.optional(v.string()),
    "plugins folder (default: plugins/ beside the database)",
  ),
  SVC_PLUGIN_SETUP_TIMEOUT_MS: described(
    integer("SVC_PLUGIN_SETUP_TIMEOUT_MS", 100, 600_000, 10_000),
    "longest a plugin's setup may take before it is skipped (default 10000)",
  ),
  SVC_MODELS_DIR: described(
    v.optional(v.string()),
    "speech models folder (default: models/ beside the database)",
  ),
  SVC_NPM_REGISTRY: described(
    v.pipe(
      v.optional(v.string(), "https://registry.npmjs.org"),
      v.url("SVC_NPM_REGISTRY must be a URL such as https://registry.npmjs.org"),
    ),
    "registry plugins are installed from (default https://registry.npmjs.org)",
  ),
  SVC_VAD: described(
    v.optional(v.picklist(["silero", "energy"], 'SVC_VAD must be "silero" or "energy"'), "silero"),
    'voice-activity detector: "silero" (default, about 110 MiB of memory) or "energy" (a few KiB, cruder)',
  ),
  SVC_WHISPER_DEVICE: described(whisperDeviceSchema, whisperDeviceHelp),
  SVC_MODEL_BASE_URL: described(
    v.pipe(
      v.optional(v.string(), ""),
      v.check(
        (value) => value === "" || URL.canParse(value),
        "SVC_MODEL_BASE_URL must be a URL whose folder holds the ggml-*.bin files, e.g. https://mirror.lan/whisper",
      ),
    ),
    "a mirror that models are downloaded from (default: each engine's own source; whisper's: the whisper.cpp files on Hugging Face)",
  ),
});

/** Thrown with every problem found, so the operator fixes them all at once. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(problems.join("; "));
    this.name = "ConfigError";
    this.problems = problems;
  }
}

/** A data folder: its variable's value, else `name`/ beside the database (":memory:": ./data). */
function dataFolder(dbPath: string, name: string, override: string | undefined): string {
  if (override?.trim()) return resolve(override.trim());
  return resolve(dataDirOf(dbPath), name);
}

/** The plugins folder: SVC_PLUGINS_DIR, else plugins/ beside the database. */
export const pluginsDirOf = (dbPath: string, override?: string): string =>
  dataFolder(dbPath, "plugins", override);

const dataDirOf = (dbPath: string) => (dbPath === ":memory:" ? resolve("data") : dirname(resolve(dbPath)));

/** The environment's lines for `svc help serve`, from the schema's descriptions. */
export function environmentHelp(): string {
  return Object.entries(envSchema.entries)
    .map(([name, schema]) => {
      const text = v.getDescription(schema) ?? "";
      return name.length < 25 ? `  ${name.padEnd(25)}${text}` : `  ${name}\n  ${"".padEnd(25)}${text}`;
    })
    .join("\n");
}

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(env: Record<string, string | undefined>) {
  const result = v.safeParse(envSchema, env, { abortPipeEarly: true });
  if (!result.success) {
    throw new ConfigError(result.issues.map((issue) => issue.message));
  }
  const out = result.output;
  const dbPath = out.SVC_DB_PATH === ":memory:" ? ":memory:" : resolve(out.SVC_DB_PATH);
  return {
    dbPath,
    port: out.PORT,
    host: out.HOST,
    /** The Wyoming listener's address, or null when SVC_WYOMING_PORT is unset. */
    wyoming:
      out.SVC_WYOMING_PORT === null
        ? null
        : { host: out.SVC_WYOMING_HOST === "" ? out.HOST : out.SVC_WYOMING_HOST, port: out.SVC_WYOMING_PORT },
    env: out.SVC_ENV,
    doNotTrack: out.DO_NOT_TRACK.trim() !== "" && out.DO_NOT_TRACK.trim() !== "0",
    trustedOrigins: new Set(out.SVC_TRUSTED_ORIGINS) as ReadonlySet<string>,
    allowedHosts: out.SVC_ALLOWED_HOSTS as readonly string[],
    /** SVC_FREESTYLE_DESKTOP=1: the Freestyle desktop app's dialect (src/desktop/) is spoken. */
    freestyleDesktop: out.SVC_FREESTYLE_DESKTOP,
    logLevel: out.SVC_LOG_LEVEL,
    /** SVC_AUTH, or null when unset (the mode stored from the console applies, else off). */
    auth: out.SVC_AUTH === "" ? null : out.SVC_AUTH,
    /** Wrong keys or codes one address may send a minute. */
    authMaxFailures: out.SVC_AUTH_MAX_FAILURES,
    /** Proxies whose forwarded client address is believed. */
    trustedProxies: out.SVC_TRUSTED_PROXIES,
    /** Console sessions' idle and absolute lifetimes and how many one key may hold. */
    sessions: {
      idleMs: out.SVC_SESSION_IDLE_DAYS * 86_400_000,
      maxMs: out.SVC_SESSION_MAX_DAYS * 86_400_000,
      perKey: out.SVC_SESSIONS_PER_KEY,
    },
    /** The Wyoming listener's allowed client ranges (loopback only when listed; it is by default). */
    wyomingAllow: out.SVC_WYOMING_ALLOW,
    /** Request body sizes, deadline, minimum rate and how many are received at once. */
    body: {
      maxUploadBytes: out.SVC_MAX_BODY_SIZE,
      maxJsonBytes: out.SVC_MAX_JSON_SIZE,
      maxImportBytes: out.SVC_MAX_IMPORT_SIZE,
      timeoutMs: out.SVC_BODY_TIMEOUT_MS,
      minBytesPerSecond: out.SVC_BODY_MIN_RATE,
      maxConcurrent: out.SVC_MAX_UPLOADS,
      maxJsonConcurrent: out.SVC_MAX_JSON_BODIES,
    },
    /** The caps that protect the server from live dictation and Wyoming clients. */
    operator: {
      dictateMaxFrameBytes: out.SVC_DICTATE_MAX_FRAME_SIZE,
      dictateMaxSessions: out.SVC_DICTATE_MAX_SESSIONS,
      wyomingMaxConnections: out.SVC_WYOMING_MAX_CONNECTIONS,
      wyomingMaxHeaderBytes: out.SVC_WYOMING_MAX_HEADER_SIZE,
      wyomingMaxDataBytes: out.SVC_WYOMING_MAX_DATA_SIZE,
      wyomingMaxPayloadBytes: out.SVC_WYOMING_MAX_PAYLOAD_SIZE,
      wyomingMaxUnreadBytes: out.SVC_WYOMING_MAX_UNREAD_SIZE,
    } satisfies OperatorLimits,
    shutdownTimeoutMs: out.SVC_SHUTDOWN_TIMEOUT_MS,
    pluginsDir: pluginsDirOf(dbPath, out.SVC_PLUGINS_DIR),
    /** Longest a plugin's setup() may take; start waits no longer for a plugin that hangs. */
    pluginSetupTimeoutMs: out.SVC_PLUGIN_SETUP_TIMEOUT_MS,
    modelsDir: dataFolder(dbPath, "models", out.SVC_MODELS_DIR),
    npmRegistry: out.SVC_NPM_REGISTRY.replace(/\/+$/, ""),
    /** A mirror for speech model downloads (`<modelBaseUrl>/ggml-base.en.bin`); "" for each engine's own. */
    modelBaseUrl: out.SVC_MODEL_BASE_URL.replace(/\/+$/, ""),
    /** Which voice-activity detector finds speech: Silero VAD, or the energy detector (less memory). */
    vad: out.SVC_VAD,
    /** Where whisper runs: a GPU through the CUDA or Vulkan build, or the CPU (SVC_WHISPER_DEVICE). */
    whisperDevice: out.SVC_WHISPER_DEVICE,
  };
}
