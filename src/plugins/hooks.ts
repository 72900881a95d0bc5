import { reasonOf } from "../errors.ts";
import type { AppContext } from "../formats/app-context.ts";
import type { HistorySource } from "../history/items.ts";
import type { DictationApi, HookApi } from "./hook-api.ts";
import { StepTimeout, withTimeout } from "./timeout.ts";

/**
 * The plugin text-hook contract and its one guarded runner: hooks run in order, each under a
 * timeout, and a hook that throws, hangs or writes garbage is reported with its plugin's name while
 * the chain goes on with the last good text. A plugin can never break a dictation. Every hook gets
 * the dictation's `api` as its third argument (hook-api.ts): a consumed or aborted dictation runs
 * no further hook. The SDK's hook types (plugins/sdk/index.d.ts) are these types, which
 * test/plugins/sdk-conformance.test.ts proves.
 */

export type { AppContext };

/**
 * The app the user dictated into, as hooks see it: svc's spelling (`app`, `title`) and
 * Freestyle's (`appName`, `windowTitle`) side by side, so plugins written for either read it.
 */
export interface HookAppContext {
  app?: string;
  title?: string;
  url?: string;
  appName?: string;
  windowTitle?: string;
  bundleId?: string;
}

/** The hooks' view of an app context: both spellings of each field. */
export function hookAppContext(context: AppContext | null): Readonly<HookAppContext> | null {
  if (context === null) return null;
  const view: HookAppContext = { ...context };
  if (context.app !== undefined) view.appName = context.app;
  if (context.title !== undefined) view.windowTitle = context.title;
  return Object.freeze(view);
}

/**
 * The door a dictation came in by: `api` (POST /api/transcribe, the console's upload,
 * POST /api/post-process), `openai` (/v1), `live` (the /api/dictate WebSocket), `wyoming` (Home
 * Assistant), `cli` (svc transcribe, svc dictate), `desktop` (the Freestyle desktop app's /stream).
 * History records the same value.
 */
export type DictationSource = HistorySource;

export interface HookInput {
  /** The text entering this hook: after cleanup, the dictionary and the hooks before it. */
  readonly text: string;
  /** The transcript as the speech engine returned it. */
  readonly raw: string;
  readonly appContext: Readonly<HookAppContext> | null;
  /** BCP 47 tag of the transcript, null when unknown. */
  readonly language: string | null;
  /** The door the dictation came in by. */
  readonly source: DictationSource;
  /** The speech engine that produced the transcript (`none` for text sent to /api/post-process). */
  readonly providerId: string;
  /** Its model (`none` for text sent to /api/post-process). */
  readonly modelId: string;
  /** Aborted when this hook's time is up; long-running hooks should stop then. */
  readonly signal: AbortSignal;
}

export interface HookOutput {
  text: string;
}

/**
 * An `afterTranscribe` hook's output: `final` makes the text final (no cleanup, dictionary or
 * later hooks; it is still delivered). `consume` is its former name, still read.
 */
export interface TranscriptHookOutput extends HookOutput {
  final?: boolean;
  /** @deprecated Use `final`; to deliver nothing, call `api.control.consume()`. */
  consume?: boolean;
}

/** The text hooks svc runs, by name; `afterTranscribe` runs on the raw transcript, before cleanup. */
export type TextHookName = "afterTranscribe" | "afterCleanup";

/** Freestyle's cleanup destinations; svc routes by formats, so it always says `overall`. */
export type CleanupToneDestination = "overall" | "personal" | "work" | "email";

export interface BeforeCleanupInput extends HookInput {
  readonly destination: CleanupToneDestination;
}

/**
 * What a `beforeCleanup` hook may change about the LLM cleanup pass. `instructions` and `system`
 * are one list under two names; `skipLlm` and `skip` likewise.
 */
export interface BeforeCleanupOutput {
  /** Lines added to the LLM's instructions (after the matched format's). */
  instructions: string[];
  /** The same list as `instructions` (Freestyle's name). */
  system: string[];
  /** True skips the LLM pass: the deterministic cleanup's text goes on. */
  skipLlm: boolean;
  /** Freestyle's name for `skipLlm`. */
  skip?: boolean;
  /** Replaces the instructions outright: the format's and every plugin's lines. */
  prompt?: string;
  /** Accepted for Freestyle's plugins; svc routes by formats and ignores it. */
  destination?: CleanupToneDestination;
}

/** A hook body: read-only `input`, mutable `output`, and the dictation's `api`. */
export type HookRun<I, O> = (input: I, output: O, api: HookApi) => void | Promise<void>;

export interface BeforeCleanupHook {
  pluginName: string;
  run: HookRun<BeforeCleanupInput, BeforeCleanupOutput>;
}

export interface AfterCleanupHook {
  pluginName: string;
  /**
   * Mutates `output.text`. A hook that works asynchronously must return its promise: whatever it
   * writes after returning (or after its timeout) is discarded.
   */
  run: HookRun<HookInput, HookOutput>;
}

export interface AfterTranscribeHook {
  pluginName: string;
  run: HookRun<HookInput, TranscriptHookOutput>;
}

export interface HookError {
  plugin: string;
  hook: TextHookName | "beforeCleanup" | "beforeTranscribe" | "beforeOutput";
  /** `plugin "<name>" failed in <hook>: <reason>`. */
  message: string;
}

export interface HookTiming {
  plugin: string;
  ms: number;
}

export interface HookRunResult {
  text: string;
  errors: HookError[];
  timings: HookTiming[];
  /** afterTranscribe: the plugin that made the text final (the chain stopped there), else null. */
  finalBy: string | null;
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === "object" && value !== null && typeof Reflect.get(value, "then") === "function";

/**
 * Calls one hook under its time limit, with a signal aborted when the time is up; a late or
 * overrunning hook throws.
 */
export async function guarded<I extends { readonly signal: AbortSignal }, O>(
  run: HookRun<I, O>,
  input: Omit<I, "signal">,
  output: O,
  timeoutMs: number,
  api: HookApi,
): Promise<void> {
  const controller = new AbortController();
  const started = performance.now();
  const result = run(Object.freeze({ ...input, signal: controller.signal }) as I, output, api);
  if (!isThenable(result)) {
    // A synchronous hook cannot be stopped, but one that overran is treated like a late
    // asynchronous one: its text is dropped.
    const ms = performance.now() - started;
    if (ms > timeoutMs) throw new Error(`took ${Math.round(ms)} ms, over the ${timeoutMs} ms limit`);
  } else {
    try {
      await withTimeout(result, timeoutMs);
    } catch (error) {
      if (error instanceof StepTimeout) controller.abort(error);
      throw error;
    }
  }
}

/**
 * The loop every hook kind shares: skipped once the dictation ended, each plugin in order, the
 * propagation flag reset at the start and obeyed after each plugin, who ended the run remembered.
 */
export async function eachHook<H extends { pluginName: string }>(
  name: HookError["hook"],
  hooks: readonly H[],
  dictation: DictationApi,
  call: (hook: H) => Promise<"stop" | undefined>,
): Promise<void> {
  if (dictation.ended) return;
  dictation.control.resetPropagationForNextHook();
  for (const hook of hooks) {
    const verdict = await call(hook);
    dictation.settle(hook.pluginName, name);
    if (verdict === "stop" || dictation.ended || dictation.control.propagationStopped) break;
  }
}

export const failure = (plugin: string, hook: HookError["hook"], error: unknown): HookError => ({
  plugin,
  hook,
  message: `plugin "${plugin}" failed in ${hook}: ${reasonOf(error)}`,
});

const typeOf = (value: unknown): string => (value === null ? "null" : typeof value);

export const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === "string");

/**
 * Runs `hooks` in order starting from `text`, each on a private output object. The timeout bounds
 * asynchronous hooks, whose late results are discarded; synchronous hooks cannot be interrupted,
 * but an overrun one's text is discarded all the same.
 */
export async function runHooks(
  hooks: readonly (AfterCleanupHook | AfterTranscribeHook)[],
  input: Omit<HookInput, "signal">,
  text: string,
  options: { timeoutMs: number; hook?: TextHookName; dictation: DictationApi },
): Promise<HookRunResult> {
  const name = options.hook ?? "afterCleanup";
  const errors: HookError[] = [];
  const timings: HookTiming[] = [];
  let current = text;
  let finalBy: string | null = null;
  await eachHook(name, hooks, options.dictation, async (hook) => {
    const started = performance.now();
    try {
      const output: TranscriptHookOutput = { text: current };
      await guarded(hook.run, { ...input, text: current }, output, options.timeoutMs, options.dictation.api);
      // Read once: later writes by a straggling hook land on an object nobody looks at again.
      const value: unknown = output.text;
      if (typeof value !== "string") throw new Error(`output.text must be a string, got ${typeOf(value)}`);
      current = value;
      if (name === "afterTranscribe" && (output.final === true || output.consume === true))
        finalBy = hook.pluginName;
    } catch (error) {
      errors.push(failure(hook.pluginName, name, error));
    }
    timings.push({ plugin: hook.pluginName, ms: performance.now() - started });
    return finalBy === null ? undefined : "stop";
  });
  return { text: current, errors, timings, finalBy };
}

/** What the `beforeCleanup` hooks decided together. */
export interface CleanupPlan {
  instructions: string[];
  skipLlm: boolean;
  /** A plugin's replacement for all instructions, the last one set. */
  prompt: string | null;
  errors: HookError[];
}

/** One beforeCleanup output's lines, under either name, each list once. */
function linesOf(output: BeforeCleanupOutput): string[] {
  const lists = [...new Set([output.instructions, output.system])];
  if (!lists.every(isStringArray))
    throw new Error("output.system (instructions) must be an array of strings");
  return lists.flat();
}

/**
 * Runs `beforeCleanup` hooks in order, each under the time limit: they add instructions to the LLM
 * pass, replace them, or skip it. A failing hook's changes are dropped and reported.
 */
export async function runBeforeCleanup(
  hooks: readonly BeforeCleanupHook[],
  input: Omit<BeforeCleanupInput, "signal">,
  options: { timeoutMs: number; dictation: DictationApi },
): Promise<CleanupPlan> {
  const plan: CleanupPlan = { instructions: [], skipLlm: false, prompt: null, errors: [] };
  await eachHook("beforeCleanup", hooks, options.dictation, async (hook) => {
    const lines: string[] = [];
    const output: BeforeCleanupOutput = { instructions: lines, system: lines, skipLlm: false };
    try {
      await guarded(hook.run, input, output, options.timeoutMs, options.dictation.api);
      const added = linesOf(output);
      if (output.prompt !== undefined && typeof output.prompt !== "string")
        throw new Error("output.prompt must be a string");
      plan.instructions.push(...added);
      if (output.skipLlm === true || output.skip === true) plan.skipLlm = true;
      if (typeof output.prompt === "string") plan.prompt = output.prompt;
    } catch (error) {
      plan.errors.push(failure(hook.pluginName, "beforeCleanup", error));
    }
    return undefined;
  });
  return plan;
}

/**
 * Wraps a plain text function into an `afterCleanup` hook body, the host-side counterpart of the
 * SDK's `transform(fn)`.
 */
export function transformHook(
  fn: (text: string, input: HookInput) => string | Promise<string>,
): AfterCleanupHook["run"] {
  return async (input, output) => {
    output.text = await fn(output.text, input);
  };
}
