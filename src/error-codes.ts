import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * Every error code svc answers with: its HTTP status and what it means. `AppError` takes a code and
 * gets its status here; routes declare the codes they can answer (their OpenAPI entry lists them);
 * docs/api.md's error tables are generated from this one (`bun run docs`). A code has one status.
 */
export const errorCodes = {
  // The request itself
  bad_request: { status: 400, summary: "the request could not be read" },
  invalid_host: { status: 400, summary: "the Host header is missing, malformed or repeated" },
  invalid_json: { status: 400, summary: "the body is not valid JSON" },
  json_too_deep: { status: 400, summary: "the JSON nests more than 64 arrays or objects deep" },
  invalid_request: {
    status: 400,
    summary: "the body does not match the route's schema; details list each field",
  },
  invalid_query: { status: 400, summary: "a query parameter is invalid" },
  invalid_path: { status: 400, summary: "the path is not valid percent-encoded UTF-8, or holds a NUL byte" },
  non_canonical_path: {
    status: 400,
    summary:
      "the path percent-encodes a letter, digit or -._~, or holds a malformed escape: every route has one spelling",
  },
  upgrade_failed: { status: 400, summary: "the WebSocket handshake was invalid" },
  unauthorized: {
    status: 401,
    summary:
      "keys are required (SVC_AUTH) and the request carried no valid key: send Authorization: Bearer svck_… or log in to the console",
  },
  forbidden_role: {
    status: 403,
    summary: "the key's role may not use this route (a dictate key on an admin route)",
  },
  untrusted_host: {
    status: 403,
    summary: "the Host is not an IP address, localhost or in SVC_ALLOWED_HOSTS",
  },
  untrusted_origin: { status: 403, summary: "a state-changing request or upgrade from an untrusted Origin" },
  cross_origin_request: {
    status: 403,
    summary:
      "a request a browser sends unasked (form, beacon, ping, report, no-cors fetch) from a page on another origin of this machine",
  },
  not_found: { status: 404, summary: "no such route or item" },
  method_not_allowed: {
    status: 405,
    summary: "the path does not answer this method; Allow lists those it does",
  },
  request_timeout: {
    status: 408,
    summary: "the body did not arrive within SVC_BODY_TIMEOUT_MS, or slower than SVC_BODY_MIN_RATE",
  },
  conflict: { status: 409, summary: "the item already exists" },
  payload_too_large: {
    status: 413,
    summary: "the body is over its route's size limit, or holds too many values",
  },
  unsupported_media_type: { status: 415, summary: "the body's Content-Type is not one the route takes" },
  upgrade_required: { status: 426, summary: "GET /api/events or /api/dictate without a WebSocket upgrade" },
  too_fast: {
    status: 429,
    summary:
      "a live dictation or Wyoming client sent audio faster than dictate_max_speed or wyoming_max_speed times real time",
  },
  too_many_attempts: {
    status: 429,
    summary:
      "too many wrong keys or codes from this address (SVC_AUTH_MAX_FAILURES a minute); retry after Retry-After",
  },
  busy: { status: 503, summary: "too many requests in flight or queued; retry after Retry-After" },
  internal: { status: 500, summary: "svc failed; quote the request id when reporting it" },
  websocket_unavailable: { status: 501, summary: "WebSockets need the server (not app.request)" },
  storage_not_writable: {
    status: 503,
    summary:
      "svc may not write a file in its own folders; the message names its owner and the chown that fixes it",
  },
  storage_full: { status: 507, summary: "the disk holding svc's data is full; nothing was half-saved" },

  // Dictation
  missing_audio: { status: 400, summary: "no audio: an empty body, or no audio/file part" },
  invalid_multipart: { status: 400, summary: "the multipart body cannot be read" },
  invalid_app_context: { status: 400, summary: "x-app-context is not JSON {app,title,url} or an app name" },
  invalid_language: { status: 400, summary: 'x-language is not "auto" or a language code' },
  translation_unsupported: {
    status: 400,
    summary: "the model or engine cannot translate; the message names one that can",
  },
  invalid_engine_option: {
    status: 400,
    summary: "an engine setting is unusable (the remote URL is not http(s))",
  },
  audio_too_long: { status: 413, summary: "the audio is longer than max_audio_seconds" },
  text_too_long: { status: 413, summary: "the text is longer than the pipeline takes" },
  unsupported_audio: {
    status: 415,
    summary: "a container or codec svc does not decode; details list those it does",
  },
  invalid_audio: { status: 422, summary: "the audio is damaged or truncated" },
  unsupported_language: { status: 422, summary: "the engine or model cannot transcribe this language" },
  invalid_model: { status: 422, summary: "the model file is not a usable whisper model" },
  engine_failed: { status: 500, summary: "the embedded engine failed on this input" },
  engine_unreachable: { status: 502, summary: "the remote transcription server cannot be reached" },
  engine_unauthorized: { status: 502, summary: "the remote server refused the API key" },
  engine_rejected: { status: 502, summary: "the remote server refused the request (4xx)" },
  engine_server_error: { status: 502, summary: "the remote server failed (5xx)" },
  engine_bad_response: { status: 502, summary: "the remote server's answer cannot be read" },
  engine_busy: { status: 503, summary: "the remote server is rate-limiting; retry after Retry-After" },
  engine_unavailable: {
    status: 503,
    summary: "the selected engine cannot run here; details say what to install",
  },
  engine_closed: { status: 503, summary: "the engine is shutting down" },
  model_unavailable: {
    status: 503,
    summary: "the selected model is not installed; the message says how to get it",
  },
  timeout: { status: 504, summary: "the transcription took longer than transcribe_timeout_seconds" },
  engine_timeout: { status: 504, summary: "no answer from the remote server within remote_stt_timeout_ms" },

  // Settings and data
  invalid_setting: { status: 400, summary: "the value is not valid for this setting" },
  invalid_setting_key: { status: 400, summary: "not a setting key (known, or a client's own dotted key)" },
  invalid_import: { status: 400, summary: "the import has bad rows or fields; details list up to 100" },
  invalid_csv: { status: 400, summary: "the CSV cannot be parsed" },
  builtin_format: { status: 409, summary: "a built-in format cannot be deleted (disable it instead)" },
  limit_exceeded: { status: 413, summary: "the list would be over its entry limit" },
  too_many_settings: { status: 413, summary: "too many client settings are stored" },

  // Access
  access_locked: {
    status: 409,
    summary: "SVC_AUTH is set in svc's environment, which decides: the stored choice cannot change it",
  },
  last_admin_key: { status: 409, summary: "the last admin key cannot be revoked while keys are required" },
  keys_off: {
    status: 409,
    summary: "keys are off, so every device may use svc without a link; turn keys on first",
  },

  // Models
  invalid_model_id: { status: 400, summary: "not a model name (letters, digits, . _ -)" },
  model_not_found: {
    status: 404,
    summary:
      "/v1: the model is neither an installed model nor one of OpenAI's names; GET /v1/models lists them",
  },
  model_exists: { status: 409, summary: "a custom model of that name is installed" },
  model_in_use: { status: 409, summary: "the active model cannot be deleted without ?force=true" },
  download_in_progress: { status: 409, summary: "another svc process is downloading this model" },
  preset_mismatch: { status: 422, summary: "the file claims a preset's name but has other bytes" },
  model_not_found_upstream: { status: 502, summary: "the model mirror answered 404" },
  download_failed: { status: 502, summary: "the model mirror failed" },
  download_interrupted: { status: 502, summary: "the download was cut; the next pull resumes it" },
  download_stalled: { status: 502, summary: "the mirror stopped sending; the next pull resumes it" },
  size_mismatch: { status: 502, summary: "the mirror's file has the wrong size" },
  checksum_mismatch: { status: 502, summary: "the downloaded file has the wrong SHA-256" },

  // Plugins
  invalid_package_name: { status: 400, summary: "not an npm package name" },
  invalid_version: { status: 400, summary: "not a version or tag" },
  ambiguous_slug: { status: 409, summary: "two packages share this slug; name the package" },
  slug_taken: { status: 409, summary: "another plugin already has this slug" },
  install_in_progress: { status: 409, summary: "this package is being installed" },
  invalid_manifest: { status: 422, summary: "the package is not an svc plugin (package.json)" },
  package_too_large: { status: 422, summary: "the package is over the size limits" },
  unsafe_archive: { status: 422, summary: "the tarball holds links, escaping paths or clashing entries" },
  plugin_failed: { status: 500, summary: "a plugin's route threw; the message names the plugin" },
  registry_unreachable: { status: 502, summary: "the npm registry cannot be reached or failed" },
  integrity_mismatch: { status: 502, summary: "the tarball does not match the registry's integrity" },
  untrusted_tarball_url: { status: 502, summary: "the registry named a tarball on another host" },
  installer_unavailable: { status: 503, summary: "plugins cannot be installed here" },
  plugin_timeout: { status: 504, summary: "a plugin's route did not answer in time" },
} as const satisfies Record<string, { status: ContentfulStatusCode; summary: string }>;

export type ErrorCode = keyof typeof errorCodes;
export type StatusOf<C extends ErrorCode> = (typeof errorCodes)[C]["status"];
/** The codes answered with `status`: `CodeWithStatus<400>`. */
export type CodeWithStatus<S extends number> = {
  [C in ErrorCode]: StatusOf<C> extends S ? C : never;
}[ErrorCode];

export const isErrorCode = (value: string): value is ErrorCode => Object.hasOwn(errorCodes, value);

export const statusOf = (code: ErrorCode): ContentfulStatusCode => errorCodes[code].status;

/** What running a speech engine on some audio can answer: a dictation, or a check of the engine. */
export const engineRunErrors = [
  "invalid_engine_option",
  "unsupported_language",
  "invalid_model",
  "engine_failed",
  "engine_unreachable",
  "engine_unauthorized",
  "engine_rejected",
  "engine_server_error",
  "engine_bad_response",
  "engine_busy",
  "engine_unavailable",
  "engine_closed",
  "model_unavailable",
  "timeout",
  "engine_timeout",
] as const satisfies readonly ErrorCode[];
