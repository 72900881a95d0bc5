import * as v from "valibot";
import { defaultEngineId, engineIds } from "../engine-ids.ts";
import { jsonObject } from "../validation.ts";
import { isModelName, keepAliveSchema, languageSchema } from "./values.ts";

/**
 * The groups the console files settings under, in its order. An engine's own settings say
 * `group: "engine"`: they are filed under the engine whose definition lists them, titled by it
 * (routes/settings.ts), after "speech".
 */
export const settingGroups = {
  speech: "Speech",
  cleanup: "Cleanup",
  llm: "LLM cleanup",
  history: "History",
  live: "Live dictation",
  wyoming: "Home Assistant (Wyoming)",
  limits: "Queue and time limits",
  plugins: "Plugins",
} as const;

/** A group of the table above, or the group of the engine that lists the setting as its own. */
export type SettingGroup = keyof typeof settingGroups | "engine";

/** A known setting: how its value is checked, what it is when unset, and what it does. */
export interface SettingDef<S extends v.GenericSchema = v.GenericSchema> {
  /** What a person calls it: the console's field label, and the subject of every message about it. */
  label: string;
  /** What a number counts ("ms", "seconds", "days"): shown beside its field and in its messages. */
  unit?: string;
  schema: S;
  default: v.InferOutput<S>;
  description: string;
  /** Where a person looks for it (GET /api/settings/schema carries it to the console). */
  group: SettingGroup;
  /** A tuning or protection limit most people never change: listed after the others of its group. */
  advanced?: boolean;
  /** Secret values (API keys) are stored but never returned, exported or published. */
  secret?: boolean;
  /**
   * For a secret: the URL setting it is sent to. The secret belongs to that URL's origin, so a
   * change of origin clears it, as a browser drops credentials on a cross-origin redirect.
   */
  boundTo?: string;
}

const define = <S extends v.GenericSchema>(def: SettingDef<S>): SettingDef<S> => def;

const specifier = v.pipe(v.string(), v.trim(), v.minLength(1, "a plugin specifier must not be empty"));
const pluginOptions = jsonObject("plugin options must be an object");
// SPEC: missing options are an empty object, so ["name"] and ["name", null] are stored as ["name", {}].
const pluginEntry = v.union(
  [
    specifier,
    v.strictTuple([specifier, pluginOptions]),
    v.pipe(
      v.union([v.strictTuple([specifier]), v.strictTuple([specifier, v.null()])]),
      v.transform(([name]): [string, Record<string, unknown>] => [name, {}]),
    ),
  ],
  'each entry must be a package name or a ["package-name", {options}] pair',
);

const httpUrl = v.pipe(
  v.string("must be an http:// or https:// URL"),
  v.trim(),
  v.maxLength(2048, "the URL must be at most 2048 characters"),
  v.url("must be an http:// or https:// URL"),
  v.check((url) => /^https?:\/\//i.test(url), "must be an http:// or https:// URL"),
);
const optionalText = (max: number) =>
  v.nullable(
    v.pipe(
      v.string("must be text, or null for none"),
      v.trim(),
      v.minLength(1, "must not be empty (send null for none)"),
      v.maxLength(max, `must be at most ${max} characters`),
    ),
  );
const whole = (min: number, max: number) =>
  v.pipe(
    v.number("must be a number"),
    v.integer("must be a whole number"),
    v.minValue(min, `must be at least ${min}`),
    v.maxValue(max, `must be at most ${max}`),
  );
// Fixed messages: valibot's defaults can quote the received value, and a secret is never echoed.
const secretText = v.nullable(
  v.pipe(
    v.string("must be a string, or null to clear it"),
    v.trim(),
    v.minLength(1, "must not be empty (send null to clear it)"),
    v.maxLength(4096, "must be at most 4096 characters"),
  ),
);

/** Every setting svc itself reads. Other keys are opaque client preferences (see service.ts). */
export const settingsCatalog = {
  plugins: define({
    label: "Plugins",
    schema: v.pipe(
      v.array(pluginEntry, 'must be a list of package names or ["package-name", {options}] pairs'),
      v.maxLength(200, "must list at most 200 plugins"),
    ),
    default: [],
    description: 'Plugins to load: package names, or ["package-name", {options}] pairs.',
    group: "plugins",
  }),
  disabled_plugins: define({
    label: "Switched-off plugins",
    schema: v.pipe(
      v.array(specifier, "must be a list of package names"),
      v.maxLength(200, "must list at most 200 plugins"),
    ),
    default: [],
    description: "Package names of installed plugins that are switched off.",
    group: "plugins",
  }),
  language: define({
    label: "Language",
    // GET /api/settings/schema adds the active engine's languages as examples: what the console offers.
    schema: languageSchema,
    default: "auto",
    description:
      'Spoken language: "auto" to detect it, or an ISO 639 code ("en", "de", "pt-br"); engines get the primary code ("pt").',
    group: "speech",
  }),
  stt_engine: define({
    label: "Speech engine",
    schema: v.picklist(engineIds, `must be one of ${engineIds.map((id) => `"${id}"`).join(", ")}`),
    default: defaultEngineId,
    description: `Speech engine: ${engineIds.join(", ")} (GET /api/engines describes each).`,
    group: "speech",
  }),
  stt_model: define({
    label: "Whisper model",
    schema: v.pipe(
      v.string("must be a model name"),
      v.trim(),
      v.check(
        isModelName,
        'must be a model name: letters, digits, ".", "_" and "-" (at most 100), without ".bin", e.g. "base.en"',
      ),
    ),
    default: "base.en",
    description:
      'Model of the embedded whisper engine: a preset such as "base.en", "tiny.en-q5_1" or "base", or an imported model (GET /api/models lists them).',
    group: "engine",
  }),
  cleanup_mode: define({
    label: "Cleanup",
    schema: v.picklist(["off", "basic", "llm"], 'must be "off", "basic" or "llm"'),
    default: "basic",
    description: "Text cleanup: off, basic (deterministic), or llm (deterministic, then an LLM pass).",
    group: "cleanup",
  }),
  filler_words: define({
    label: "Filler words",
    schema: v.pipe(
      v.array(
        v.pipe(
          v.string("must be a list of words"),
          v.trim(),
          v.minLength(1, "must not hold an empty word"),
          v.maxLength(50, "must hold words of at most 50 characters"),
        ),
        "must be a list of words",
      ),
      v.maxLength(500, "must hold at most 500 words"),
    ),
    default: [],
    description: "Extra filler words or phrases that basic cleanup removes, beside the built-in ones.",
    group: "cleanup",
  }),
  keep_alive: define({
    label: "Keep alive",
    schema: keepAliveSchema,
    default: "5m",
    description:
      "How long svc keeps the speech model, the sphinx decoder, the voice-activity detector and the compressed-upload decoder loaded after the last dictation (Ollama's keep_alive): a duration such as 30s, 5m or 1h, a number of seconds, 0 to give them back after each dictation, -1 to keep them. The next dictation loads them again.",
    group: "speech",
  }),
  history_paused: define({
    label: "Pause history",
    schema: v.boolean("must be true or false"),
    default: false,
    description: "When true, new dictations are not written to history.",
    group: "history",
  }),
  history_retention_days: define({
    label: "History retention",
    unit: "days",
    schema: v.nullable(whole(1, 3650)),
    default: null,
    description: "Delete history older than this many days (checked on change and daily); null keeps it all.",
    group: "history",
  }),
  llm_base_url: define({
    label: "LLM base URL",
    schema: v.nullable(httpUrl),
    default: null,
    description: "Base URL of an OpenAI-compatible chat API for llm cleanup, e.g. http://localhost:11434/v1.",
    group: "llm",
  }),
  llm_model: define({
    label: "LLM model",
    schema: optionalText(200),
    default: null,
    description: "Chat model used for llm cleanup.",
    group: "llm",
  }),
  llm_api_key: define({
    label: "LLM API key",
    schema: secretText,
    default: null,
    description:
      "API key for the llm cleanup endpoint. Write-only. Cleared when llm_base_url moves to another origin.",
    secret: true,
    boundTo: "llm_base_url",
    group: "llm",
  }),
  llm_timeout_ms: define({
    label: "LLM timeout",
    unit: "ms",
    schema: whole(500, 120_000),
    // Dictation waits for this call: a few seconds, then the deterministic text is used.
    default: 4000,
    description: "Time allowed for the llm cleanup call before the deterministic text is used.",
    group: "llm",
  }),
  remote_stt_base_url: define({
    label: "Remote speech base URL",
    schema: v.nullable(httpUrl),
    default: null,
    description: "Base URL of an OpenAI-compatible transcription API (stt_engine remote).",
    group: "engine",
  }),
  remote_stt_model: define({
    label: "Remote speech model",
    schema: optionalText(200),
    default: null,
    description: 'Model name sent to the remote transcription API, e.g. "whisper-1".',
    group: "engine",
  }),
  remote_stt_api_key: define({
    label: "Remote speech API key",
    schema: secretText,
    default: null,
    description:
      "API key for the remote transcription API. Write-only. Cleared when remote_stt_base_url moves to another origin.",
    secret: true,
    boundTo: "remote_stt_base_url",
    group: "engine",
  }),
  remote_stt_timeout_ms: define({
    label: "Remote speech timeout",
    unit: "ms",
    schema: whole(1000, 600_000),
    default: 60_000,
    description: "Time allowed for one remote transcription request.",
    group: "engine",
    advanced: true,
  }),
  remote_stt_concurrency: define({
    label: "Remote requests at once",
    unit: "requests",
    schema: whole(1, 64),
    // One keeps dictated clips ahead of long files' chunks; a server that runs requests in
    // parallel (a cloud API, a GPU pool) takes more.
    default: 1,
    description:
      "Requests sent to the remote transcription API at once (stt_engine remote); more wait in svc's queue.",
    group: "engine",
    advanced: true,
  }),
  max_audio_seconds: define({
    label: "Longest recording",
    unit: "seconds",
    schema: whole(1, 3600),
    default: 600,
    description: "Longest recording accepted for transcription; longer audio is refused with 413.",
    group: "speech",
  }),
  audio_ctx_scaling: define({
    label: "Fit whisper's audio context to the clip",
    schema: v.boolean("must be true or false"),
    default: true,
    description: "Shrink whisper's audio context to the clip length: much faster on short dictations.",
    group: "engine",
    advanced: true,
  }),
  whisper_threads: define({
    label: "Whisper threads",
    unit: "threads",
    schema: v.nullable(whole(1, 256)),
    default: null,
    description:
      "CPU threads for the embedded whisper engine; null picks one per core (at most 4 when whisper runs on a GPU).",
    group: "engine",
  }),
  transcribe_queue_size: define({
    label: "Transcription queue",
    unit: "recordings",
    schema: whole(1, 1000),
    default: 16,
    description:
      "Recordings allowed to wait for the speech engine; one more is answered 503 busy with Retry-After.",
    group: "limits",
    advanced: true,
  }),
  transcribe_timeout_seconds: define({
    label: "Transcription time limit",
    unit: "seconds",
    schema: whole(5, 86_400),
    default: 600,
    description: "Longest one transcription may take end to end before it is stopped with 504 timeout.",
    group: "limits",
  }),
  whisper_max_tokens: define({
    label: "Whisper tokens per window",
    unit: "tokens",
    schema: whole(0, 448),
    default: 0,
    description:
      "Most tokens whisper may write per 30 s window (0 = no cap); a cap stops runaway repetition loops.",
    group: "engine",
    advanced: true,
  }),
  dictate_max_session_seconds: define({
    label: "Longest live dictation",
    unit: "seconds",
    schema: whole(5, 3600),
    default: 300,
    description: "Longest live dictation (GET /api/dictate); audio past it ends the session with an error.",
    group: "live",
  }),
  live_partial_budget: define({
    label: "Partial guess budget",
    unit: "× piece time",
    schema: v.pipe(
      v.number("must be a number"),
      v.minValue(0, "must be at least 0"),
      v.maxValue(10, "must be at most 10"),
    ),
    default: 0.35,
    description:
      "Engine time a live dictation's partial guesses may use, as a multiple of the time its committed pieces took (before the first piece, of 0.1 s per second of speech). At 0.35 a live dictation costs about 1.5 times the CPU of the same audio uploaded whole (each piece's own text is shown as soon as its pause begins, whatever this is); more gives more frequent partial text. Guesses only fill idle time and stop the moment a committed piece or an upload needs the engine; 0 turns them off.",
    group: "live",
    advanced: true,
  }),
  dictate_max_speed: define({
    label: "Live dictation speed limit",
    unit: "× real time",
    schema: whole(1, 1000),
    default: 4,
    description:
      "How many times faster than real time a live dictation may send audio (after a 1 s head start); faster ends it with the error code too_fast.",
    group: "live",
    advanced: true,
  }),
  dictate_start_timeout_seconds: define({
    label: "Live dictation start timeout",
    unit: "seconds",
    schema: whole(1, 60),
    default: 5,
    description:
      "A live dictation socket that has not sent start this long after connecting is closed with the error code request_timeout; until start it does not count against SVC_DICTATE_MAX_SESSIONS.",
    group: "live",
    advanced: true,
  }),
  dictate_idle_timeout_seconds: define({
    label: "Live dictation idle timeout",
    unit: "seconds",
    schema: whole(1, 600),
    default: 30,
    description:
      "A live dictation that receives nothing this long is ended with the error code request_timeout.",
    group: "live",
  }),
  wyoming_idle_timeout_seconds: define({
    label: "Wyoming idle timeout",
    unit: "seconds",
    schema: whole(1, 600),
    default: 30,
    description:
      "A Wyoming connection that sends nothing this long (while no transcript is being made) is closed.",
    group: "wyoming",
  }),
  wyoming_max_utterance_seconds: define({
    label: "Longest Wyoming utterance",
    unit: "seconds",
    schema: whole(5, 600),
    default: 60,
    description:
      "Longest audio one Wyoming transcription takes; more ends it with the error audio_too_long. After a transcription fails, the rest of its audio is read for at most this long, waiting for audio-stop.",
    group: "wyoming",
  }),
  wyoming_unread_timeout_seconds: define({
    label: "Wyoming unread timeout",
    unit: "seconds",
    schema: whole(1, 600),
    default: 10,
    description:
      "A Wyoming client whose unread answers stay past SVC_WYOMING_MAX_UNREAD_SIZE this long is disconnected.",
    group: "wyoming",
    advanced: true,
  }),
  wyoming_max_speed: define({
    label: "Wyoming speed limit",
    unit: "× real time",
    schema: whole(1, 1000),
    default: 4,
    description:
      "How many times faster than real time a Wyoming client may send audio (after a 1 s head start); faster ends it with the error code too_fast.",
    group: "wyoming",
    advanced: true,
  }),
  wyoming_min_bytes_per_second: define({
    label: "Wyoming slowest event rate",
    unit: "bytes/s",
    schema: whole(0, 1_048_576),
    default: 1024,
    description:
      "Bytes per second a Wyoming event must keep arriving at once it has begun, measured over each 5 s (0 turns it off); a slower one ends with the error code request_timeout.",
    group: "wyoming",
    advanced: true,
  }),
  wyoming_max_control_bytes_per_second: define({
    label: "Wyoming control rate limit",
    unit: "bytes/s",
    schema: whole(1024, 16_777_216),
    default: 131_072,
    description:
      "Bytes per second of Wyoming events other than audio (describe, ping, transcribe…) a client may send, a second's worth at once; more ends it with the error code too_fast.",
    group: "wyoming",
    advanced: true,
  }),
  hook_timeout_ms: define({
    label: "Plugin hook timeout",
    unit: "ms",
    schema: whole(50, 60_000),
    default: 5000,
    description: "Time a plugin hook may take before it is skipped and the text moves on.",
    group: "limits",
    advanced: true,
  }),
} as const;

export type SettingsCatalog = typeof settingsCatalog;
export type SettingKey = keyof SettingsCatalog;
export type SettingValue<K extends SettingKey> = v.InferOutput<SettingsCatalog[K]["schema"]>;

export const settingKeys = Object.keys(settingsCatalog) as SettingKey[];

export const isKnownSetting = (key: string): key is SettingKey => Object.hasOwn(settingsCatalog, key);

/**
 * Settings that became environment variables (the caps that protect the server: a client must not
 * raise them over the API), by the variable that replaced each. Writing one is refused with 400
 * naming it, never stored as a client preference that silently does nothing.
 */
export const retiredSettings: Readonly<Record<string, string>> = {
  dictate_max_frame_bytes: "SVC_DICTATE_MAX_FRAME_SIZE",
  dictate_max_sessions: "SVC_DICTATE_MAX_SESSIONS",
  wyoming_max_connections: "SVC_WYOMING_MAX_CONNECTIONS",
  wyoming_max_header_bytes: "SVC_WYOMING_MAX_HEADER_SIZE",
  wyoming_max_data_bytes: "SVC_WYOMING_MAX_DATA_SIZE",
  wyoming_max_payload_bytes: "SVC_WYOMING_MAX_PAYLOAD_SIZE",
  wyoming_max_unread_bytes: "SVC_WYOMING_MAX_UNREAD_SIZE",
};
