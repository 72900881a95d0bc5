/**
 * svc-sdk: the contract between svc and its plugins.
 *
 * A plugin is an npm package whose entry module default-exports a {@link PluginFactory}. svc
 * calls the factory with the plugin's options, runs {@link Plugin.setup}, then uses the hooks
 * and routes the returned {@link Plugin} declares. svc provides this module at run time, so
 * `import { transform } from "svc-sdk"` works without bundling it.
 *
 * @example
 * ```ts
 * import { transform } from "svc-sdk";
 *
 * export default function shout() {
 *   return { name: "@acme/shout", afterCleanup: transform((text) => text.toUpperCase()) };
 * }
 * ```
 * @packageDocumentation
 */

/**
 * Version of the SDK runtime svc provides.
 *
 * @example
 * ```ts
 * import { sdkVersion } from "svc-sdk";
 * ctx.logger.info(`running on svc-sdk ${sdkVersion}`);
 * ```
 */
export declare const sdkVersion: string;

/**
 * How svc runs the plugin. Plugins loaded by the server always see `"server"`.
 *
 * @example
 * ```ts
 * setup(ctx) { if (ctx.mode === "server") ctx.logger.info("loaded by the server"); }
 * ```
 */
export type PluginMode = "server";

/**
 * The options object from the `plugins` setting: the second element of
 * `["package-name", { ...options }]`. A missing options value is `{}`.
 *
 * @example
 * ```json
 * { "plugins": [["@svc/profanity-filter", { "preserveCase": false }]] }
 * ```
 */
export type PluginOptions = Record<string, unknown>;

/**
 * Writes to svc's log, each line prefixed with the plugin's name.
 *
 * @example
 * ```ts
 * ctx.logger.info("replacements loaded", { count: 42 });
 * ctx.logger.warn("falling back to the default list");
 * ```
 */
export interface PluginLogger {
  debug(message: string, extra?: Record<string, unknown>): void;
  info(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
  error(message: string, extra?: Record<string, unknown>): void;
}

/**
 * Why a {@link PluginStorage} call was refused. The thrown `Error` carries it as `code`.
 *
 * @example
 * ```ts
 * try { await ctx.storage.set("big", hugeObject); }
 * catch (error) { if ((error as { code?: string }).code === "value_too_large") shrink(); }
 * ```
 */
export type PluginStorageErrorCode = "value_too_large" | "storage_full" | "invalid_key" | "invalid_value";

/**
 * Persistent key-value storage of JSON values, private to the plugin (no other plugin can read
 * it) and kept across restarts, reloads, disabling and reinstalling. A value is at most 256 KiB
 * of JSON and a plugin stores at most 8 MiB in all; over that, `set` rejects with an error whose
 * `code` is a {@link PluginStorageErrorCode}.
 *
 * @example
 * ```ts
 * const count = ((await ctx.storage.get<number>("count")) ?? 0) + 1;
 * await ctx.storage.set("count", count);
 * ```
 */
export interface PluginStorage {
  /** The stored value, or `undefined` when nothing is stored under `key`. */
  get<T = unknown>(key: string): Promise<T | undefined>;
  /** Stores a JSON-serialisable value (not `undefined`) under `key` (1-200 characters). */
  set(key: string, value: unknown): Promise<void>;
  /** Removes `key`; true when something was stored. */
  delete(key: string): Promise<boolean>;
  /** Every key the plugin stores, sorted. */
  keys(): Promise<string[]>;
}

/**
 * What {@link Plugin.setup} receives.
 *
 * @example
 * ```ts
 * async setup(ctx) {
 *   routeBase = `${ctx.basePath}/items`;
 *   items = (await ctx.storage.get("items")) ?? [];
 *   ctx.logger.info(`ready at ${routeBase}`);
 * }
 * ```
 */
export interface PluginContext {
  /** The installed package's name (a development copy's ends in `-dev`). */
  readonly name: string;
  /** URL segment of the plugin's namespace, derived from the package name. */
  readonly slug: string;
  /** `/api/plugins/<slug>`: build route paths from it, never hard-code the slug. */
  readonly basePath: string;
  readonly mode: PluginMode;
  readonly storage: PluginStorage;
  readonly logger: PluginLogger;
  /**
   * The options from the `plugins` setting (`{}` when none), frozen: the same values the factory
   * received, for code that runs later.
   */
  readonly options: Readonly<PluginOptions>;
  /**
   * The plugin's own folder for files (created on first call, inside svc's plugins folder as
   * `.data/<slug>`); it is kept when the plugin is updated or reinstalled.
   *
   * @example
   * ```ts
   * const cache = join(await ctx.dataDir(), "cache.json");
   * ```
   */
  dataDir(): Promise<string>;
  /**
   * Freestyle's `directory`: the plugin's own data folder (what `dataDir()` resolves to), created
   * before `setup` runs. It is never svc's database folder.
   */
  readonly directory: string;
  /**
   * Read-only settings. `get` reads one of svc's settings as text (JSON for numbers, lists and
   * booleans); secrets such as `llm_api_key` always read as `undefined`. `getOwn` reads the
   * plugin's own options (from the `plugins` setting, with `config`'s defaults) the same way.
   *
   * @example
   * ```ts
   * setup(ctx) { if (ctx.settings.get("cleanup_mode") === "llm") ctx.logger.info("LLM cleanup is on"); }
   * ```
   */
  readonly settings: SettingsReader;
}

/**
 * Read-only access to settings, as {@link PluginContext.settings} gives it.
 *
 * @example
 * ```ts
 * const placement = ctx.settings.getOwn("placement") ?? "after";
 * ```
 */
export interface SettingsReader {
  get(key: string): string | undefined;
  getOwn(key: string): string | undefined;
}

/**
 * The app the user dictated into, as the client described it; fields may be missing.
 *
 * @example
 * ```ts
 * transform((text, input) => (input.appContext?.app === "Slack" ? text.toLowerCase() : text));
 * ```
 */
export interface AppContext {
  app?: string;
  title?: string;
  url?: string;
  /** Freestyle's name for `app`: the same value. */
  appName?: string;
  /** Freestyle's name for `title`: the same value. */
  windowTitle?: string;
  bundleId?: string;
}

/**
 * The door a dictation came in by: `api` (POST /api/transcribe, the console's upload, text sent to
 * POST /api/post-process), `openai` (/v1/audio/…), `live` (the /api/dictate WebSocket), `wyoming`
 * (Home Assistant's Assist), `cli` (svc transcribe, svc dictate), `desktop` (the Freestyle desktop
 * app's live dictation, with SVC_FREESTYLE_DESKTOP=1). History records the same value.
 *
 * @example
 * ```ts
 * afterCleanup(input, output) { if (input.source === "wyoming") output.text = output.text.toLowerCase(); }
 * ```
 */
export type DictationSource = "api" | "openai" | "live" | "wyoming" | "cli" | "desktop";

/**
 * Read-only facts about the dictation an {@link AfterCleanupHook} runs on.
 *
 * @example
 * ```ts
 * afterCleanup(input, output) { if (input.language === "de") output.text = output.text.replace(/ß/g, "ss"); }
 * ```
 */
export interface AfterCleanupInput {
  /** The text entering this hook (after cleanup, the dictionary and earlier plugins). */
  readonly text: string;
  /** The transcript as the speech engine returned it. */
  readonly raw: string;
  readonly appContext: Readonly<AppContext> | null;
  /** BCP 47 language tag of the transcript, or null when unknown. */
  readonly language: string | null;
  /** The door the dictation came in by. */
  readonly source: DictationSource;
  /** The speech engine that produced the transcript (`none` for text sent to /api/post-process). */
  readonly providerId: string;
  /** Its model (`none` for text sent to /api/post-process). */
  readonly modelId: string;
  /** Aborted when the hook's time is up: stop work (e.g. pass it to `fetch`). */
  readonly signal: AbortSignal;
}

/**
 * The hook's output: set `text` to the new text.
 *
 * @example
 * ```ts
 * afterCleanup(_input, output) { output.text = output.text.trim(); }
 * ```
 */
export interface AfterCleanupOutput {
  text: string;
}

/**
 * The last text transform of the pipeline (cleanup → dictionary → plugins, in `plugins` order).
 * Mutate `output.text`. Runs under a time limit: if it throws or runs out of time, the error is
 * logged with the plugin's name and the text moves on unchanged by this hook. An asynchronous hook
 * must return its promise; writes after that are ignored.
 *
 * @example
 * ```ts
 * const hook: AfterCleanupHook = async (input, output) => {
 *   output.text = await translate(output.text, { signal: input.signal });
 * };
 * ```
 */
export type AfterCleanupHook = (
  input: AfterCleanupInput,
  output: AfterCleanupOutput,
  api: HookApi,
) => void | Promise<void>;

/**
 * An `afterTranscribe` hook's output: the raw transcript to edit, and `final`, which makes its text
 * final: no cleanup, dictionary or later hooks, and it is delivered. To deliver nothing (a voice
 * command that ran an action), call `api.control.consume()` instead.
 *
 * @example
 * ```ts
 * afterTranscribe(input, output) { if (input.text === "new line") { output.text = "\n"; output.final = true; } }
 * ```
 */
export interface AfterTranscribeOutput extends AfterCleanupOutput {
  final?: boolean;
  /** @deprecated Use `final`; to deliver nothing, call `api.control.consume()`. */
  consume?: boolean;
}

/**
 * Runs on the raw transcript, before cleanup (in `enforce` order, then `plugins` order); time-limited
 * like `afterCleanup`. Edit `output.text`, or consume it.
 *
 * @example
 * ```ts
 * const hook: AfterTranscribeHook = (input, output) => { output.text = input.text.replace(/\bsvc\b/gi, "SVC"); };
 * ```
 */
export type AfterTranscribeHook = (
  input: AfterCleanupInput,
  output: AfterTranscribeOutput,
  api: HookApi,
) => void | Promise<void>;

/** Freestyle's cleanup destinations; svc picks instructions by formats and always says `overall`. */
export type CleanupToneDestination = "overall" | "personal" | "work" | "email";

/**
 * What a `beforeCleanup` hook sees: the dictation's facts, the deterministic text and Freestyle's
 * `destination`.
 *
 * @example
 * ```ts
 * beforeCleanup(input, output) { if (input.appContext?.appName === "Mail") output.system.push("Write it as an email."); }
 * ```
 */
export interface BeforeCleanupInput extends AfterCleanupInput {
  readonly destination: CleanupToneDestination;
}

/**
 * What a `beforeCleanup` hook may change about the LLM cleanup pass (it runs only when
 * `cleanup_mode` is `llm`): lines for its instructions (`instructions` and `system` are one list
 * under two names), `prompt` to replace every instruction, or `skipLlm` (`skip`) to keep the
 * deterministic text.
 *
 * @example
 * ```ts
 * beforeCleanup(input, output) { output.instructions.push("Write numbers as digits."); }
 * ```
 */
export interface BeforeCleanupOutput {
  instructions: string[];
  /** The same list as `instructions` (Freestyle's name). */
  system: string[];
  skipLlm: boolean;
  /** Freestyle's name for `skipLlm`. */
  skip?: boolean;
  /** Replaces the instructions outright: the format's and every plugin's lines. */
  prompt?: string;
  /** Accepted for Freestyle's plugins; svc routes by formats and ignores it. */
  destination?: CleanupToneDestination;
}

/** Runs before the LLM cleanup pass, on the deterministic text; time-limited. */
export type BeforeCleanupHook = (
  input: BeforeCleanupInput,
  output: BeforeCleanupOutput,
  api: HookApi,
) => void | Promise<void>;

/** How the client delivers the text: type it, put it on the clipboard, or not at all. */
export type OutputMode = "paste" | "clipboard" | "none";

/**
 * What a `beforeOutput` hook may change: the text about to be answered, and `mode`; `none`
 * delivers nothing (the answer says `disposition: "suppressed"`).
 *
 * @example
 * ```ts
 * beforeOutput(input, output) { if (input.appContext?.app === "Terminal") output.mode = "clipboard"; }
 * ```
 */
export interface BeforeOutputOutput {
  text: string;
  mode: OutputMode;
}

/** The last text stage, after `afterCleanup`; time-limited like the others. */
export type BeforeOutputHook = (
  input: AfterCleanupInput,
  output: BeforeOutputOutput,
  api: HookApi,
) => void | Promise<void>;

/** Where a dictation's run stands: going on, handled by a plugin, or stopped. */
export type PipelineControlState = "running" | "consumed" | "aborted";

/**
 * Cancellation and suppression for one dictation, shared by all its hooks.
 *
 * @example
 * ```ts
 * afterTranscribe(input, output, api) { if (input.text === "lights on") { lights(true); api.control.consume("lights on"); } }
 * ```
 */
export interface PipelineControl {
  readonly state: PipelineControlState;
  /** The reason given to `consume` or `abort`. */
  readonly reason: string | undefined;
  /** Aborted by `abort()`: pass it to cancellable work. */
  readonly signal: AbortSignal;
  /** The remaining plugins of this hook are skipped; later hooks run. */
  stopPropagation(): void;
  /**
   * The dictation is handled: nothing is delivered (`disposition: "suppressed"`, an empty
   * transcript), no later stage runs and nothing is stored in history.
   */
  consume(reason?: string): void;
  /** Hard stop: nothing is delivered (`disposition: "aborted"`) and a pipelineError event says why. */
  abort(reason?: string): void;
}

/**
 * svc's LLM (the llm_* settings) for a plugin's own work; the API key stays with svc.
 *
 * @example
 * ```ts
 * const { text } = await api.llm.generateText({ system: "Answer yes or no.", prompt: input.text, signal: api.signal });
 * ```
 */
export interface PluginLlm {
  /** `openai-compatible`. */
  readonly providerId: string;
  /** The llm_model setting. */
  readonly modelId: string;
  /** A language model the Vercel AI SDK (`ai` 6) accepts: `generateText({ model: api.llm.getModel() as LanguageModel, tools })`. */
  getModel(): unknown;
  generateText(options: PluginLlmGenerateOptions): Promise<PluginLlmGenerateResult>;
}

export interface PluginLlmGenerateOptions {
  prompt: string;
  system?: string;
  /** Stops the request early (pass `api.signal`). */
  signal?: AbortSignal;
}

export interface PluginLlmGenerateResult {
  text: string;
  usage?: { inputTokens: number; outputTokens: number };
}

/**
 * The third argument of every mutating hook: one per dictation, shared by all its stages.
 *
 * @example
 * ```ts
 * async afterTranscribe(input, output, api) {
 *   if (!api.llm) return;
 *   const { text } = await api.llm.generateText({ prompt: `Is this a command? ${input.text}`, signal: api.signal });
 *   if (text.startsWith("yes")) api.control.consume("voice command");
 * }
 * ```
 */
export interface HookApi {
  readonly control: PipelineControl;
  /** `control.signal`. */
  readonly signal: AbortSignal;
  /** Present when an LLM is configured (llm_base_url and llm_model). */
  readonly llm?: PluginLlm;
}

/**
 * What a `beforeTranscribe` hook sees: the decoded audio (mono, 16 kHz, samples in [-1, 1]) before
 * any speech engine runs. A recording sent whole (`api`, `openai`, `svc transcribe`) is one call. A
 * live dictation (`live`, `wyoming`, `svc dictate`) calls once per committed piece, the speech
 * between two pauses, as soon as the pause closes it, and never for the partial guesses at the
 * piece still being spoken: what a hook decides (or consumes) happens once per piece of speech,
 * with the audio the engine would hear.
 *
 * @example
 * ```ts
 * beforeTranscribe(input, output) { if (input.source === "wyoming" && input.durationMs < 300) { output.text = ""; output.consume = true; } }
 * ```
 */
export interface BeforeTranscribeInput {
  readonly pcm: Float32Array;
  readonly sampleRate: number;
  readonly durationMs: number;
  /** Freestyle's name for `durationMs`. */
  readonly audioDurationMs: number;
  /** The language asked for ("auto" lets the engine detect it). */
  readonly language: string;
  readonly appContext: Readonly<AppContext> | null;
  /** The engine that will run unless a hook picks another (an `stt_engine` value). */
  readonly providerId: string;
  /** Its model. */
  readonly modelId: string;
  /** The door the dictation came in by. */
  readonly source: DictationSource;
  /** Aborted when the hook's time is up. */
  readonly signal: AbortSignal;
}

/**
 * What a `beforeTranscribe` hook may change for this one dictation: the audio, the engine (an
 * `stt_engine` value), the model, the language, the vocabulary bias, or, with `consume`, the
 * transcript itself (no engine runs).
 *
 * @example
 * ```ts
 * beforeTranscribe(input, output) { if (input.durationMs < 300) { output.text = ""; output.consume = true; } }
 * ```
 */
export interface BeforeTranscribeOutput {
  pcm?: Float32Array;
  /**
   * The audio as 16-bit mono WAV bytes (Freestyle's field): encoded when first read; set WAV
   * bytes to replace the audio.
   */
  audio?: Uint8Array;
  engine?: string;
  /** Freestyle's name for `engine`; starts as the engine that would run. */
  providerId?: string;
  /** "auto" or an ISO 639 code ("de", "pt-br"), as the `language` setting; anything else is reported and ignored. */
  language?: string;
  /** Another model of the engine (an installed model's name), in place of `stt_model`. */
  model?: string;
  /** Freestyle's name for `model`; starts as the model that would run. */
  modelId?: string;
  /** The terms that bias recognition of this dictation, in place of the stored vocabulary. */
  vocabulary?: string[];
  /** Freestyle's name for `vocabulary`. */
  bias?: string[];
  /** The transcript: no speech engine runs, and the text goes on through the pipeline. */
  text?: string;
  /** @deprecated Setting `text` is enough; to deliver nothing, call `api.control.consume()`. */
  consume?: boolean;
}

/** Runs on the decoded audio before the speech engine; time-limited like the text hooks. */
export type BeforeTranscribeHook = (
  input: BeforeTranscribeInput,
  output: BeforeTranscribeOutput,
  api: HookApi,
) => void | Promise<void>;

/**
 * A server event, as `/api/events` sends it: a `type` (`history.created`, `settings.changed`, …), a
 * `time`, and ids, keys and numbers (never content).
 */
export type ServerEvent = Readonly<{ type: string; time: string } & Record<string, unknown>>;

/**
 * Freestyle's pipeline events. svc hands them to `event` hooks in-process, with the text (plugins
 * are trusted code), as `{ type: "dictation.<type>", time, event }`; the `/api/events` socket never
 * carries them.
 */
export type FreestyleEvent =
  | { type: "recordingStarted" }
  | { type: "recordingCommitted" }
  | { type: "recordingCancelled" }
  | { type: "transcribed"; text: string; durationInSeconds?: number }
  | { type: "cleaned"; before: string; after: string }
  | { type: "outputDelivered"; text: string; mode: OutputMode }
  | {
      type: "pipelineError";
      stage: "capture" | "transcribe" | "cleanup" | "transform" | "output";
      message: string;
    };

/**
 * What an `event` hook receives: svc's event fields, and `event`, the same event in Freestyle's
 * shape (a {@link FreestyleEvent} for pipeline events, the server event itself for the others).
 *
 * @example
 * ```ts
 * event(input) { if (input.event.type === "transcribed") count += 1; }
 * ```
 */
export type EventHookInput = ServerEvent & { readonly event: Readonly<FreestyleEvent> | ServerEvent };

/**
 * The incoming request as plugin middleware sees it (a Hono `HonoRequest`).
 *
 * @example
 * ```ts
 * if (c.req.method === "POST" && c.req.path === `${base}/items`) {
 *   const body = await c.req.json<{ name: string }>();
 * }
 * ```
 */
export interface PluginRequest {
  readonly method: string;
  /** The full path, e.g. `/api/plugins/acme-notes/items`. */
  readonly path: string;
  readonly url: string;
  readonly raw: Request;
  header(name: string): string | undefined;
  query(name: string): string | undefined;
  json<T = unknown>(): Promise<T>;
  text(): Promise<string>;
}

/**
 * The request context handed to middleware: it is Hono's `Context`; these are the members
 * plugins can rely on.
 *
 * @example
 * ```ts
 * (c, next) => (c.req.path === `${base}/ping` ? c.json({ pong: true }) : next())
 * ```
 */
export interface PluginRequestContext {
  readonly req: PluginRequest;
  json(value: unknown, status?: number, headers?: Record<string, string>): Response;
  text(text: string, status?: number, headers?: Record<string, string>): Response;
  html(html: string, status?: number, headers?: Record<string, string>): Response;
  body(
    data: string | ArrayBuffer | ReadableStream | null,
    status?: number,
    headers?: Record<string, string>,
  ): Response;
  header(name: string, value: string): void;
  status(status: number): void;
}

/**
 * HTTP middleware under `/api/plugins/<slug>/…`. svc calls only this plugin's handlers, in
 * array order, for requests in its own namespace. A handler answers by returning a `Response`,
 * or calls `next()` to pass the request on; when no handler answers, svc replies 404. A handler
 * that throws gets 500 `plugin_failed`; one that takes longer than 30 s gets 504.
 * `GET/HEAD …/ui/…` and `POST …/enable|disable` are answered by svc itself.
 *
 * @example
 * ```ts
 * const ping: PluginMiddleware = (c, next) =>
 *   c.req.method === "GET" && c.req.path === `${base}/ping` ? c.json({ ok: true }) : next();
 * ```
 */
export type PluginMiddleware = (
  c: PluginRequestContext,
  next: () => Promise<void>,
  // biome-ignore lint/suspicious/noConfusingVoidType: an async handler that only awaits next() returns Promise<void>
) => Response | undefined | Promise<Response | undefined | void> | void;

/**
 * Any Hono middleware (`MiddlewareHandler` from "hono"): svc calls it with the request's real
 * Hono `Context` and a `next` that runs the plugin's later handlers.
 *
 * @example
 * ```ts
 * import { secureHeaders } from "hono/secure-headers";
 * const plugin: Plugin = { name: "@acme/notes", middleware: [secureHeaders(), notesRoutes] };
 * ```
 */
export type HonoMiddleware = (c: never, next: () => Promise<void>) => unknown;

/**
 * What a plugin factory returns. Every member but `name` is optional.
 *
 * @example
 * ```ts
 * const plugin: Plugin = {
 *   name: "@acme/notes",
 *   async setup(ctx) { base = ctx.basePath; },
 *   middleware: [(c, next) => (c.req.path === `${base}/notes` ? c.json([]) : next())],
 *   afterCleanup: transform((text) => text.replace(/\bteh\b/g, "the")),
 * };
 * ```
 */
export interface Plugin {
  /** The plugin's package name, used in logs and error messages. */
  name: string;
  /** Runs once per load, before any hook or request; time-limited. Throwing skips the plugin. */
  setup?(ctx: PluginContext): void | Promise<void>;
  /**
   * Request handlers, in order. Handlers receive a real Hono `Context`, so Hono's own middleware
   * (`MiddlewareHandler`, e.g. `secureHeaders()`) fits too; headers a handler sets after
   * `await next()` reach the response.
   */
  middleware?: ReadonlyArray<PluginMiddleware | HonoMiddleware>;
  /** Swaps the audio, engine or language of one dictation, or answers it, before the engine runs. */
  beforeTranscribe?: BeforeTranscribeHook;
  /** Edits (or consumes) the raw transcript before cleanup. */
  afterTranscribe?: AfterTranscribeHook;
  /** Adds instructions to the LLM cleanup pass, or skips it. */
  beforeCleanup?: BeforeCleanupHook;
  afterCleanup?: AfterCleanupHook;
  /** The last text stage: edits the text or picks how it is delivered (`mode: "none"` suppresses it). */
  beforeOutput?: BeforeOutputHook;
  /** Observes every server event and pipeline event; not awaited, and a throw is logged, never passed on. */
  event?(event: EventHookInput): void | Promise<void>;
  /**
   * Runs at load, after the factory and before `setup`, with the plugin's options: what it returns
   * are defaults for them (the `plugins` setting's values win), which `ctx.options` then holds.
   */
  config?(config: Readonly<PluginOptions>): PluginOptions | undefined | Promise<PluginOptions | undefined>;
  /** `"pre"` runs this plugin's hooks before the others', `"post"` after; otherwise `plugins` order. */
  enforce?: "pre" | "post";
  /** Runs when the plugin is unloaded (reload, disable, uninstall, shutdown): stop timers here. */
  dispose?(): void | Promise<void>;
}

/**
 * The default export of a plugin's entry module (`main`, e.g. `dist/index.js`).
 *
 * @example
 * ```ts
 * const factory: PluginFactory<{ greeting?: string }> = (options = {}) => ({
 *   name: "@acme/greeter",
 *   afterCleanup: transform((text) => `${options.greeting ?? "Hi"}! ${text}`),
 * });
 * export default factory;
 * ```
 */
export type PluginFactory<O extends object = PluginOptions> = (options?: O) => Plugin;

/**
 * A UI page the plugin adds as a screen inside the app.
 *
 * @example
 * ```json
 * { "id": "settings", "title": "Notes", "entry": "dist/ui/index.html" }
 * ```
 */
export interface PluginPage {
  /** 1-64 of a-z, 0-9 and `-`, unique within the plugin. */
  id: string;
  title: string;
  /** Built HTML file under `dist/ui/`; served at `/api/plugins/<slug>/ui/<path below dist/ui>`. */
  entry: string;
}

/**
 * The `svc` field of a plugin's `package.json`.
 *
 * @example
 * ```json
 * { "icon": "sparkles", "contributes": { "pages": [{ "id": "main", "title": "Filter", "entry": "dist/ui/index.html" }] } }
 * ```
 */
export interface PluginManifest {
  displayName?: string;
  /** Icon name shown beside the plugin in the app. */
  icon?: string;
  contributes?: { pages?: PluginPage[] };
}

/**
 * The parts of `package.json` svc reads. Plugins are ES modules that ship bundled code: svc
 * installs no dependencies (only `svc-sdk`, which svc provides, may be listed) and runs no
 * install scripts.
 *
 * @example
 * ```json
 * {
 *   "name": "@acme/notes", "version": "1.0.0", "type": "module", "main": "dist/index.js",
 *   "files": ["dist"], "dependencies": { "svc-sdk": "^0.1.0" },
 *   "svc": { "icon": "notebook" }
 * }
 * ```
 */
export interface PluginPackageJson {
  name: string;
  version: string;
  description?: string;
  type: "module";
  main: string;
  files?: string[];
  dependencies?: { "svc-sdk"?: string; "freestyle-voice"?: string };
  /** The manifest; a package written for Freestyle may carry it as `freestyle` instead (`svc` wins). */
  svc?: PluginManifest;
  freestyle?: PluginManifest;
}

/**
 * Payload of the `copy` host action: puts `text` on the clipboard.
 *
 * @example
 * ```ts
 * await window.svc?.invoke("copy", { text: "hello" });
 * ```
 */
export interface CopyPayload {
  text: string;
}

/**
 * Payload of the `toast` host action: shows a short message in the app.
 *
 * @example
 * ```ts
 * await window.svc?.invoke("toast", { message: "Saved", variant: "success" });
 * ```
 */
export interface ToastPayload {
  message: string;
  variant?: "success" | "info" | "warning" | "error";
}

/**
 * Payload of the `navigate` host action: opens an in-app route.
 *
 * @example
 * ```ts
 * await window.svc?.invoke("navigate", { to: "/plugins" });
 * ```
 */
export interface NavigatePayload {
  to: string;
}

/**
 * Host actions by channel.
 *
 * @example
 * ```ts
 * const payload: HostActionPayloads["toast"] = { message: "Done", variant: "success" };
 * ```
 */
export interface HostActionPayloads {
  copy: CopyPayload;
  toast: ToastPayload;
  navigate: NavigatePayload;
}

/**
 * A host action channel.
 *
 * @example
 * ```ts
 * const channel: HostActionChannel = "toast";
 * ```
 */
export type HostActionChannel = keyof HostActionPayloads;

/**
 * `window.svc`, injected by the app into a plugin page. Absent when the page is opened outside
 * the app (during development): check before use.
 *
 * @example
 * ```ts
 * const svc = window.svc;
 * if (svc) {
 *   const res = await svc.api(`/api/plugins/acme-notes/notes`);
 *   if (res.ok) render(await res.json());
 *   else await svc.invoke("toast", { message: `Error ${res.status}`, variant: "error" });
 * }
 * ```
 */
export interface SvcBridge {
  /**
   * `fetch` against the server. Only paths in the page's own `/api/plugins/<slug>/` namespace,
   * `/api/health` and `/api/transcribe` (a page may transcribe files) are allowed: any other
   * resolves to a 403 with the error code
   * `bridge_forbidden`, never sent. Redirects are not followed: a 3xx answer resolves to a 502
   * `bridge_redirect`. Resolves to a native `Response` (`res.ok` is false for error statuses).
   */
  api(path: string, init?: RequestInit): Promise<Response>;
  /** Runs a host action in the app. */
  invoke<C extends HostActionChannel>(channel: C, payload: HostActionPayloads[C]): Promise<unknown>;
  /** Origin the page is served from. */
  readonly serverUrl: string;
}

declare global {
  interface Window {
    /** The svc bridge; undefined outside the app. */
    svc?: SvcBridge;
    /** The same object as `window.svc`, for pages written for Freestyle. */
    freestyle?: SvcBridge;
  }
}

/** Freestyle's name for {@link SvcBridge}. */
export type FreestyleBridge = SvcBridge;

/** Freestyle's `OutputMode` values. */
export declare const OutputMode: {
  readonly Paste: "paste";
  readonly Clipboard: "clipboard";
  readonly None: "none";
};

/** Freestyle's event type names. */
export declare const FreestyleEventType: {
  readonly RecordingStarted: "recordingStarted";
  readonly RecordingCommitted: "recordingCommitted";
  readonly RecordingCancelled: "recordingCancelled";
  readonly Transcribed: "transcribed";
  readonly Cleaned: "cleaned";
  readonly OutputDelivered: "outputDelivered";
  readonly PipelineError: "pipelineError";
};

/** Freestyle's pipeline stage names. */
export declare const PipelineStage: {
  readonly Capture: "capture";
  readonly Transcribe: "transcribe";
  readonly Cleanup: "cleanup";
  readonly Transform: "transform";
  readonly Output: "output";
};

/**
 * Reads an app-context header value (JSON or a bare app name) into both spellings.
 *
 * @example
 * ```ts
 * parseAppContext('{"app":"Slack"}'); // { app: "Slack", appName: "Slack" }
 * ```
 */
export declare function parseAppContext(raw: string | null | undefined): AppContext | undefined;

/**
 * Adapts a string logger into a {@link PluginLogger}, folding `extra` into the line as JSON.
 *
 * @example
 * ```ts
 * const logger = createPluginLogger(console);
 * ```
 */
export declare function createPluginLogger(base: {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}): PluginLogger;

/**
 * Wraps a string-to-string function (sync or async) into an {@link AfterCleanupHook}.
 *
 * @example
 * ```ts
 * export default () => ({
 *   name: "@acme/no-exclamations",
 *   afterCleanup: transform((text) => text.replaceAll("!", ".")),
 * });
 * ```
 */
export declare function transform(
  fn: (text: string, input: AfterCleanupInput) => string | Promise<string>,
): AfterCleanupHook;

/**
 * Identity helper that types a plugin factory.
 *
 * @example
 * ```ts
 * export default definePlugin((options: { limit?: number } = {}) => ({ name: "@acme/limit" }));
 * ```
 */
export declare function definePlugin<O extends object>(factory: PluginFactory<O>): PluginFactory<O>;

/**
 * `window.svc` when the page runs inside the app, otherwise undefined.
 *
 * @example
 * ```ts
 * const svc = getBridge();
 * if (!svc) document.body.textContent = "Open this page from svc.";
 * ```
 */
export declare function getBridge(): SvcBridge | undefined;

/**
 * The slug svc derives from a package name, by the host's own rule: the name without `@`, every
 * run of other characters than a-z, A-Z, 0-9 one `-`, trimmed, lowercased. A plugin's routes live
 * under `/api/plugins/<slug>/`.
 *
 * @example
 * ```ts
 * pluginSlug("@svc/profanity-filter"); // "svc-profanity-filter"
 * ```
 */
export declare function pluginSlug(name: string): string;
