import { reasonOf } from "../errors.ts";
import type { AppContext } from "../formats/app-context.ts";
import type { HistorySource } from "../history/items.ts";
import { StepTimeout, withTimeout } from "./timeout.ts";

/**
 * The plugin text-hook contract and its one guarded runner: hooks run in order, each under a
 * timeout, and a hook that throws, hangs or writes garbage is reported with its plugin's name while
 * the chain goes on with the last good text. A plugin can never break a dictation. The SDK's
 * `AfterCleanupInput` and `AfterCleanupHook` (plugins/sdk/index.d.ts) are these types, which
 * test/plugins/sdk-conformance.test.ts proves.
 */

export type { AppContext };

/**
 * The door a dictation came in by: `api` (POST /api/transcribe, the console's upload,
 * POST /api/post-process), `openai` (/v1), `live` (the /api/dictate WebSocket), `wyoming` (Home
 * Assistant), `cli` (svc transcribe, svc dictate). History records the same value.
 */
export type DictationSource = HistorySource;

export interface HookInput {
  /** The text entering this hook: after cleanup, the dictionary and the hooks before it. */
  readonly text: string;
  /** The transcript as the speech engine returned it. */
  readonly raw: string;
  readonly appContext: Readonly<AppContext> | null;
  /** BCP 47 tag of the transcript, null when unknown. */
  readonly language: string | null;
  /** The door the dictation came in by. */
  readonly source: DictationSource;
  /** Aborted when this hook's time is up; long-running hooks should stop then. */
  readonly signal: AbortSignal;
}

export interface HookOutput {
  text: string;
}

/** An `afterTranscribe` hook's output: `consume` marks the text handled (a voice command). */
export interface TranscriptHookOutput extends HookOutput {
  consume?: boolean;
}

/** The text hooks svc runs, by name; `afterTranscribe` runs on the raw transcript, before cleanup. */
export type TextHookName = "afterTranscribe" | "afterCleanup";

/** What a `beforeCleanup` hook may change about the LLM cleanup pass. */
export interface BeforeCleanupOutput {
  /** Lines added to the LLM's instructions (after the matched format's). */
  instructions: string[];
  /** True skips the LLM pass: the deterministic cleanup's text goes on. */
  skipLlm: boolean;
}

export interface BeforeCleanupHook {
  pluginName: string;
  run: (input: HookInput, output: BeforeCleanupOutput) => void | Promise<void>;
}

export interface AfterCleanupHook {
  pluginName: string;
  /**
   * Mutates `output.text`. A hook that works asynchronously must return its promise: whatever it
   * writes after returning (or after its timeout) is discarded.
   */
  run: (input: HookInput, output: HookOutput) => void | Promise<void>;
}

export interface HookError {
  plugin: string;
  hook: TextHookName | "beforeCleanup" | "beforeTranscribe";
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
  /** afterTranscribe: the plugin that consumed the text (the chain stopped there), else null. */
  consumedBy: string | null;
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === "object" && value !== null && typeof Reflect.get(value, "then") === "function";

/**
 * Calls one hook under its time limit, with a signal aborted when the time is up; a late or
 * overrunning hook throws.
 */
async function guarded<I extends { readonly signal: AbortSignal }, O>(
  run: (input: I, output: O) => void | Promise<void>,
  input: Omit<I, "signal">,
  output: O,
  timeoutMs: number,
): Promise<void> {
  const controller = new AbortController();
  const started = performance.now();
  const result = run(Object.freeze({ ...input, signal: controller.signal }) as I, output);
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

/** Runs one text hook on a private output object; resolves to what it left, or throws why not. */
async function runOne(
  hook: AfterCleanupHook,
  input: Omit<HookInput, "signal">,
  text: string,
  timeoutMs: number,
): Promise<{ text: string; consume: boolean }> {
  const output: TranscriptHookOutput = { text };
  await guarded(hook.run, { ...input, text }, output, timeoutMs);
  // Read once: later writes by a straggling hook land on an object nobody looks at again.
  const value: unknown = output.text;
  if (typeof value !== "string") throw new Error(`output.text must be a string, got ${typeOf(value)}`);
  return { text: value, consume: output.consume === true };
}

const typeOf = (value: unknown): string => (value === null ? "null" : typeof value);

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === "string");

/**
 * Runs `hooks` in order starting from `text`. The timeout bounds asynchronous hooks, whose late
 * results are discarded; synchronous hooks cannot be interrupted, but an overrun one's text is
 * discarded all the same.
 */
export async function runHooks(
  hooks: readonly AfterCleanupHook[],
  input: Omit<HookInput, "signal">,
  text: string,
  options: { timeoutMs: number; hook?: TextHookName },
): Promise<HookRunResult> {
  const name = options.hook ?? "afterCleanup";
  const errors: HookError[] = [];
  const timings: HookTiming[] = [];
  let current = text;
  let consumedBy: string | null = null;
  for (const hook of hooks) {
    const started = performance.now();
    try {
      const result = await runOne(hook, input, current, options.timeoutMs);
      current = result.text;
      if (name === "afterTranscribe" && result.consume) consumedBy = hook.pluginName;
    } catch (error) {
      const message = `plugin "${hook.pluginName}" failed in ${name}: ${reasonOf(error)}`;
      errors.push({ plugin: hook.pluginName, hook: name, message });
    }
    timings.push({ plugin: hook.pluginName, ms: performance.now() - started });
    if (consumedBy !== null) break;
  }
  return { text: current, errors, timings, consumedBy };
}

/**
 * Runs `beforeCleanup` hooks in order, each under the time limit: they add instructions to the LLM
 * pass or skip it. A failing hook's changes are dropped and reported; the others stand.
 */
export async function runBeforeCleanup(
  hooks: readonly BeforeCleanupHook[],
  input: Omit<HookInput, "signal">,
  options: { timeoutMs: number },
): Promise<BeforeCleanupOutput & { errors: HookError[] }> {
  const instructions: string[] = [];
  let skipLlm = false;
  const errors: HookError[] = [];
  for (const hook of hooks) {
    const output: BeforeCleanupOutput = { instructions: [], skipLlm: false };
    try {
      await guarded(hook.run, input, output, options.timeoutMs);
      const added: unknown = output.instructions;
      if (!isStringArray(added)) throw new Error("output.instructions must be an array of strings");
      instructions.push(...added);
      if (output.skipLlm === true) skipLlm = true;
    } catch (error) {
      const message = `plugin "${hook.pluginName}" failed in beforeCleanup: ${reasonOf(error)}`;
      errors.push({ plugin: hook.pluginName, hook: "beforeCleanup", message });
    }
  }
  return { instructions, skipLlm, errors };
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

/**
 * What a `beforeTranscribe` hook sees: the decoded audio (mono, 16 kHz) and the request. A whole
 * recording is one call; a live dictation (`live`, `wyoming`, `svc dictate`) calls once per
 * committed piece, the speech between two pauses, and never for its partial guesses.
 */
export interface BeforeTranscribeInput {
  readonly pcm: Float32Array;
  readonly sampleRate: number;
  readonly durationMs: number;
  /** The language asked for ("auto" when the engine should detect it). */
  readonly language: string;
  readonly appContext: Readonly<AppContext> | null;
  /** The door the dictation came in by. */
  readonly source: DictationSource;
  readonly signal: AbortSignal;
}

/** What a `beforeTranscribe` hook may change for this one dictation. */
export interface BeforeTranscribeOutput {
  /** Replacement audio (mono, 16 kHz, samples in [-1, 1]), e.g. trimmed or filtered. */
  pcm?: Float32Array;
  /** Another engine (an `stt_engine` value) for this dictation. */
  engine?: string;
  /** Another language (an ISO 639 code, or "auto"). */
  language?: string;
  /** Another model of the engine (an installed model's name, in place of `stt_model`). */
  model?: string;
  /** The terms that bias recognition of this dictation, in place of the stored vocabulary. */
  vocabulary?: string[];
  /** With `consume`: the transcript, so no speech engine runs. */
  text?: string;
  consume?: boolean;
}

export interface BeforeTranscribeHook {
  pluginName: string;
  run: (input: BeforeTranscribeInput, output: BeforeTranscribeOutput) => void | Promise<void>;
}

/**
 * Runs `beforeTranscribe` hooks in order, each on the audio the ones before left, under the time
 * limit. A hook whose output is malformed or that fails is reported and its changes dropped; one
 * that consumes stops the chain with its text.
 */
export async function runBeforeTranscribe(
  hooks: readonly BeforeTranscribeHook[],
  input: Omit<BeforeTranscribeInput, "signal">,
  options: {
    timeoutMs: number;
    isEngine(value: string): boolean;
    /** The language tag as svc stores it, or undefined when the value is not one. */
    language(value: string): string | undefined;
  },
): Promise<BeforeTranscribeOutput & { errors: HookError[]; consumedBy: string | null }> {
  const plan: BeforeTranscribeOutput = {};
  const errors: HookError[] = [];
  let consumedBy: string | null = null;
  for (const hook of hooks) {
    const output: BeforeTranscribeOutput = {};
    try {
      const current = { ...input, pcm: plan.pcm ?? input.pcm, language: plan.language ?? input.language };
      await guarded(hook.run, current, output, options.timeoutMs);
      const { pcm, engine, language, model, vocabulary, text, consume } = output;
      if (pcm !== undefined && !(pcm instanceof Float32Array))
        throw new Error("output.pcm must be a Float32Array");
      if (engine !== undefined && !options.isEngine(engine))
        throw new Error(`output.engine "${engine}" is not an engine`);
      const tag = typeof language === "string" ? options.language(language) : undefined;
      if (language !== undefined && tag === undefined)
        throw new Error(`output.language ${JSON.stringify(language)} is not "auto" or an ISO 639 code`);
      if (model !== undefined && typeof model !== "string") throw new Error("output.model must be a string");
      if (vocabulary !== undefined && !isStringArray(vocabulary))
        throw new Error("output.vocabulary must be an array of strings");
      if (consume === true && typeof text !== "string") throw new Error("output.consume needs output.text");
      const changes = { pcm, engine, language: tag, model, vocabulary };
      Object.assign(plan, Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)));
      if (consume === true) {
        plan.text = text;
        plan.consume = true;
        consumedBy = hook.pluginName;
      }
    } catch (error) {
      const message = `plugin "${hook.pluginName}" failed in beforeTranscribe: ${reasonOf(error)}`;
      errors.push({ plugin: hook.pluginName, hook: "beforeTranscribe", message });
    }
    if (consumedBy !== null) break;
  }
  return { ...plan, errors, consumedBy };
}
