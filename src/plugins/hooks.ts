import { reasonOf } from "../errors.ts";
import type { AppContext } from "../formats/app-context.ts";
import { StepTimeout, withTimeout } from "./timeout.ts";

/**
 * The plugin text-hook contract and its one guarded runner: hooks run in order, each under a
 * timeout, and a hook that throws, hangs or writes garbage is reported with its plugin's name while
 * the chain goes on with the last good text. A plugin can never break a dictation. The SDK's
 * `AfterCleanupInput` and `AfterCleanupHook` (plugins/sdk/index.d.ts) are these types, which
 * test/plugins/sdk-conformance.test.ts proves.
 */

export type { AppContext };

export interface HookInput {
  /** The text entering this hook: after cleanup, the dictionary and the hooks before it. */
  readonly text: string;
  /** The transcript as the speech engine returned it. */
  readonly raw: string;
  readonly appContext: Readonly<AppContext> | null;
  /** BCP 47 tag of the transcript, null when unknown. */
  readonly language: string | null;
  /** Aborted when this hook's time is up; long-running hooks should stop then. */
  readonly signal: AbortSignal;
}

export interface HookOutput {
  text: string;
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
  hook: "afterCleanup";
  /** `plugin "<name>" failed in afterCleanup: <reason>`. */
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
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === "object" && value !== null && typeof Reflect.get(value, "then") === "function";

/** Runs one hook on a private output object; resolves to its text or throws why it has none. */
async function runOne(
  hook: AfterCleanupHook,
  input: Omit<HookInput, "signal">,
  text: string,
  timeoutMs: number,
): Promise<string> {
  const controller = new AbortController();
  const output: HookOutput = { text };
  const started = performance.now();
  const result = hook.run(Object.freeze({ ...input, text, signal: controller.signal }), output);
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
  // Read once: later writes by a straggling hook land on an object nobody looks at again.
  const value: unknown = output.text;
  if (typeof value !== "string") throw new Error(`output.text must be a string, got ${typeOf(value)}`);
  return value;
}

const typeOf = (value: unknown): string => (value === null ? "null" : typeof value);

/**
 * Runs `hooks` in order starting from `text`. The timeout bounds asynchronous hooks, whose late
 * results are discarded; synchronous hooks cannot be interrupted, but an overrun one's text is
 * discarded all the same.
 */
export async function runHooks(
  hooks: readonly AfterCleanupHook[],
  input: Omit<HookInput, "signal">,
  text: string,
  options: { timeoutMs: number },
): Promise<HookRunResult> {
  const errors: HookError[] = [];
  const timings: HookTiming[] = [];
  let current = text;
  for (const hook of hooks) {
    const started = performance.now();
    try {
      current = await runOne(hook, input, current, options.timeoutMs);
    } catch (error) {
      const message = `plugin "${hook.pluginName}" failed in afterCleanup: ${reasonOf(error)}`;
      errors.push({ plugin: hook.pluginName, hook: "afterCleanup", message });
    }
    timings.push({ plugin: hook.pluginName, ms: performance.now() - started });
  }
  return { text: current, errors, timings };
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
