// What the console tells a person when something fails: one plain sentence (what happened, what to
// do) per error code svc can answer, and the technical rest (code, status, svc's own message, the
// browser's) kept for a "Details" disclosure. Every error the console shows goes through here.
import { ApiError } from "./api.ts";

type Say = string | ((error: ApiError) => string);

/** "in 30 s", or "in a moment" when svc named no Retry-After. */
const later = (error: ApiError) => (error.retryAfter ? `in ${error.retryAfter} s` : "in a moment");

const reachDownloads =
  "svc could not download the model from the download server. Check this machine's internet connection and try again, or copy the model file in by hand (see Details).";
const resume = "Press Resume to continue from where it stopped.";
const liveLost = "The live connection to svc could not be opened. Reload the page and try again.";
const wrongAddress = "That address is not one of svc's pages. Go back and choose a screen from the menu.";
const otherSite = "svc refused a request sent from another site. Make the change on svc's own page.";

/** A refusal from svc's settings routes, whose message is its own labelled sentence. */
function fromSettings(error: ApiError): boolean {
  const details = error.details as { key?: unknown; settings?: unknown } | undefined;
  return error.message !== "" && (typeof details?.key === "string" || typeof details?.settings === "object");
}

/**
 * The sentence for each error code: every code in svc's table (src/error-codes.ts) and the few the
 * server or this console make outside it. A test fails when svc gains a code without one here.
 */
export const errorSentences: Record<string, Say> = {
  bad_request: "svc could not read that request. Reload the page and try again.",
  invalid_host:
    "svc refused the address this page was opened with. Open svc by its IP address or localhost, or add the name to its allowed hosts (see Details).",
  invalid_json: "svc could not read what was sent. Check what you typed and try again.",
  json_too_deep: "What was sent is nested too deeply for svc to read. Simplify it and try again.",
  invalid_request:
    "svc did not accept what was sent. Check what you entered and try again (Details say what).",
  invalid_query: "svc did not accept a search or filter value. Change it and try again.",
  invalid_path: wrongAddress,
  non_canonical_path: wrongAddress,
  upgrade_failed: liveLost,
  unauthorized:
    "The key or code is not valid, or this browser's session has ended. Log in with a valid key; a one-time code works only once.",
  forbidden_role: "Your key may dictate but not change svc. Log in with an admin key to do this.",
  untrusted_host:
    "svc does not know the name this page was opened with. Open it by IP address or localhost, or add the name to svc's allowed hosts (see Details).",
  untrusted_origin: otherSite,
  cross_origin_request: otherSite,
  not_found: "That is not there any more: it may have been deleted meanwhile. Reload the page and try again.",
  method_not_allowed: "This svc does not offer that action. Reload the page; svc may have been updated.",
  request_timeout:
    "What was sent arrived too slowly, so svc stopped waiting. Check the connection and try again.",
  conflict: "That already exists. Choose another name, or change the one already there.",
  payload_too_large: "That is more than svc takes at once. Send something smaller (the limit is in Details).",
  unsupported_media_type: "svc cannot take this kind of file here. Choose another file.",
  upgrade_required: liveLost,
  too_fast: "Audio arrived faster than anyone speaks, so svc stopped. Try again.",
  too_many_attempts: (error) =>
    `Too many wrong keys or codes came from this device. Wait and try again ${later(error)}.`,
  busy: (error) => `svc is busy with other work. Try again ${later(error)}.`,
  internal:
    "Something went wrong inside svc. Try again; if it keeps happening, report it with the request id in Details.",
  websocket_unavailable: liveLost,
  storage_not_writable:
    "svc may not write in its own folders. Give them back to svc's user with the command in Details, then try again.",
  storage_full: "The disk svc saves to is full, so this was not saved. Free some space and try again.",

  missing_audio: "Nothing was recorded. Check that the right microphone is selected and not muted.",
  invalid_multipart: "svc could not read the upload. Try again.",
  invalid_app_context:
    "The app context could not be read. Type an app name, such as Slack, or leave it empty.",
  invalid_language: "That language is not one svc knows. Choose another from the list.",
  translation_unsupported: "This speech model cannot translate. Choose one that can in Models (see Details).",
  invalid_engine_option:
    "A setting of the speech engine cannot be used. Correct it in Models: a server address starts with http:// or https://.",
  audio_too_long:
    "The recording is longer than svc takes. Record a shorter piece, or raise the limit in Settings.",
  text_too_long: "The text is longer than svc takes. Send a shorter text.",
  unsupported_audio:
    "That file is not audio svc can read. Choose a recording such as WAV, MP3, FLAC or Ogg (the full list is in Details).",
  invalid_audio:
    "The recording is damaged or cut off, so svc could not read it. Record again, or choose another file.",
  unsupported_language:
    "The speech model cannot transcribe this language. Choose another language, or a multilingual model in Models.",
  invalid_model: "The model file is not a usable speech model. Delete it in Models and download it again.",
  engine_failed:
    "The speech engine failed on this recording. Try again; if it keeps failing, choose another model in Models.",
  engine_unreachable:
    "svc could not reach the speech server. Check that it is running and that its address in Models is right.",
  engine_unauthorized: "The speech server refused svc's API key. Check the key in Models.",
  engine_rejected:
    "The speech server refused the request. Check its settings in Models (its answer is in Details).",
  engine_server_error: "The speech server failed. Try again later, or choose another engine in Models.",
  engine_bad_response:
    "The speech server's answer could not be read. Check that its address in Models is a speech-to-text server.",
  engine_busy: (error) => `The speech server is busy. Try again ${later(error)}.`,
  engine_unavailable: "This speech engine cannot run on this machine yet. Details say what to install.",
  engine_closed: "The speech engine is shutting down. Try again in a moment.",
  model_unavailable:
    "The speech model is not installed. Download it in Models, or choose another way to dictate.",
  timeout:
    "Transcribing took too long, so svc stopped. Try a shorter recording, or a faster model in Models.",
  engine_timeout: "The speech server did not answer in time. Check that it is running, then try again.",

  // A refusal from the settings routes (its details name the setting) is svc's own sentence: the
  // setting's label and the rule ("LLM timeout must be at least 500 ms."), one per setting refused.
  invalid_setting: (error) =>
    fromSettings(error)
      ? `${error.message.replace(/\.?$/, ".")} Correct it and save again.`
      : "That value is not valid for this setting. Correct it and save again.",
  keys_off:
    "Keys are off, so every device can already use svc without a link. Turn keys on first to add a device with its own key.",
  invalid_setting_key: "svc does not know this setting. Reload the page; svc may have been updated.",
  invalid_import:
    "The file has entries svc cannot take, so nothing was imported. Fix them and import it again.",
  invalid_csv:
    "The CSV file could not be read, so nothing was imported. Check that it is comma-separated with a header row.",
  builtin_format: "A built-in format cannot be deleted. Switch it off instead.",
  limit_exceeded: "The list is full, so nothing was added. Delete entries you no longer need first.",
  too_many_settings: "Too many settings are stored. Remove some you no longer use, then try again.",

  access_locked:
    "Whether svc asks for keys is set where svc is started, so it cannot be changed here. Change it there and restart svc (see Details).",
  last_admin_key:
    "This is the last admin key: without it nobody could change svc. Make another admin key first.",

  invalid_model_id: "That is not a model name. Use letters, digits, dots, dashes and underscores.",
  model_not_found: "svc has no model of that name. Choose one listed in Models.",
  model_exists: "A model of that name is already installed. Choose another name.",
  model_in_use: "This model is the one dictation uses, so it was not deleted. Choose another model first.",
  download_in_progress:
    "Another svc program on this machine (such as svc models pull) is downloading this model. Wait for it to finish.",
  preset_mismatch:
    "The model file has a known model's name but other contents. Remove it and download the model again.",
  model_not_found_upstream:
    "The download server does not have this model. Choose another model, or copy the model file in by hand (see Details).",
  download_failed: reachDownloads,
  download_interrupted: `The download broke off. ${resume}`,
  download_stalled: `The download server stopped sending. ${resume}`,
  size_mismatch: "The downloaded file is not the expected size, so it was not installed. Try again later.",
  checksum_mismatch: "The downloaded file is not the expected one, so it was not installed. Try again later.",

  invalid_package_name: "That is not an npm package name. Check the spelling, such as @svc/profanity-filter.",
  invalid_version: "That is not a version. Use a version number such as 1.2.0, or a tag such as latest.",
  ambiguous_slug: "Two installed plugins go by this name. Reload the page and try again.",
  slug_taken: "Another installed plugin already uses this name. Uninstall it first.",
  install_in_progress: "This plugin is already being installed. Wait a moment, then reload the page.",
  invalid_manifest: "That package is not an svc plugin. Check its name.",
  package_too_large: "That package is too large to install.",
  unsafe_archive: "That package holds files svc will not unpack, so it was not installed.",
  plugin_failed:
    "A plugin failed on this request. If it keeps failing, switch it off in Plugins (Details name it).",
  registry_unreachable:
    "svc could not reach the npm registry. Check this machine's internet connection, then try again.",
  integrity_mismatch:
    "The package is not the one the registry vouches for, so it was not installed. Try again later.",
  untrusted_tarball_url: "The registry pointed to a download on another site, so svc did not install it.",
  installer_unavailable: "Plugins cannot be installed on this svc. Details say why.",
  plugin_timeout: "A plugin did not answer in time. Try again, or switch it off in Plugins.",

  // Outside svc's table: a request the client gave up on, and the console's own two.
  client_closed: "The request was cancelled before svc answered. Try again.",
  offline:
    "svc cannot be reached. Check that it is running and that this device can reach it, then try again.",
  http_error: "svc answered with an error it did not explain. Try again; its answer is in Details.",
};

/** What to do about a code beyond the sentence, shown under Details. */
const errorHints: Record<string, string> = {
  download_failed:
    "Without internet: copy the model file (ggml-<name>.bin) to this machine and run svc models import FILE, or dictate with PocketSphinx or a remote server (Models).",
  model_not_found_upstream:
    "Copy the model file to this machine and run svc models import FILE; with a mirror (SVC_MODEL_BASE_URL), check that it holds the file.",
  invalid_host: "Names other than IP addresses and localhost go in SVC_ALLOWED_HOSTS.",
  untrusted_host: "Names other than IP addresses and localhost go in SVC_ALLOWED_HOSTS.",
  access_locked: "The SVC_AUTH environment variable decides.",
};

/** A failure the console words itself: `message` is the sentence; `details` the technical rest. */
export class PlainError extends Error {
  constructor(
    message: string,
    readonly details: readonly [label: string, value: string][] = [],
  ) {
    super(message);
    this.name = "PlainError";
  }
}

export interface ErrorWords {
  /** What happened and what to do, in plain words. */
  sentence: string;
  /** The technical detail, label and value, for the Details disclosure. */
  details: [label: string, value: string][];
}

function apiWords(error: ApiError): ErrorWords {
  const say = errorSentences[error.code];
  const sentence =
    typeof say === "function"
      ? say(error)
      : (say ??
        (error.status >= 500
          ? "svc could not do this. Try again; if it keeps failing, Details hold svc's answer."
          : "svc did not accept this. Details hold its answer."));
  const details: [string, string][] = [
    ["Error code", error.status > 0 ? `${error.code} (HTTP ${error.status})` : error.code],
  ];
  if (error.message) details.push([error.status > 0 ? "svc said" : "What happened", error.message]);
  const hint = errorHints[error.code];
  if (hint) details.push(["What else helps", hint]);
  if (error.requestId) details.push(["Request id", error.requestId]);
  return { sentence, details };
}

/**
 * The words for anything thrown: svc's errors by their code; the console's own sentences (a
 * `PlainError`, or a plain `Error` a screen throws with its sentence) as they are; anything else
 * (the browser's own failures) as a general sentence with the browser's message under Details.
 */
export function errorWords(error: unknown): ErrorWords {
  if (error instanceof ApiError) return apiWords(error);
  if (error instanceof PlainError) return { sentence: error.message, details: [...error.details] };
  if (error instanceof Error && error.name === "Error") return { sentence: error.message, details: [] };
  return {
    sentence: "Something went wrong in this page. Reload it and try again.",
    details: [
      ["The browser said", error instanceof Error ? `${error.name}: ${error.message}` : String(error)],
    ],
  };
}

/**
 * The sentence to show at one form field: svc's own refusal of the value (it names the field by its
 * label and says the rule), else the plain sentence for the failure.
 */
export function fieldMessage(error: unknown): string {
  if (error instanceof ApiError && error.code === "invalid_setting" && fromSettings(error))
    return error.message;
  return errorWords(error).sentence;
}
