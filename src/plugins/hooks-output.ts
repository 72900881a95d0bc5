import type { DictationApi } from "./hook-api.ts";
import { eachHook, failure, guarded, type HookError, type HookInput, type HookRun } from "./hooks.ts";

/**
 * `beforeOutput`, the last text stage: after `afterCleanup`, on the text about to be answered.
 * `mode` says how the client should deliver it; `none` delivers nothing (the dictation is
 * suppressed, like a consumed one).
 */

/** How the client delivers the text: type it, put it on the clipboard, or not at all. */
export type OutputMode = "paste" | "clipboard" | "none";

export const outputModes: readonly OutputMode[] = ["paste", "clipboard", "none"];

export interface BeforeOutputOutput {
  text: string;
  mode: OutputMode;
}

export interface BeforeOutputHook {
  pluginName: string;
  run: HookRun<HookInput, BeforeOutputOutput>;
}

export interface OutputPlan extends BeforeOutputOutput {
  errors: HookError[];
}

/** Runs `beforeOutput` hooks in order on private outputs; a malformed one is reported and dropped. */
export async function runBeforeOutput(
  hooks: readonly BeforeOutputHook[],
  input: Omit<HookInput, "signal">,
  start: BeforeOutputOutput,
  options: { timeoutMs: number; dictation: DictationApi },
): Promise<OutputPlan> {
  const plan: OutputPlan = { ...start, errors: [] };
  await eachHook("beforeOutput", hooks, options.dictation, async (hook) => {
    const output: BeforeOutputOutput = { text: plan.text, mode: plan.mode };
    try {
      await guarded(
        hook.run,
        { ...input, text: plan.text },
        output,
        options.timeoutMs,
        options.dictation.api,
      );
      const { text, mode } = output;
      if (typeof text !== "string") throw new Error("output.text must be a string");
      if (!outputModes.includes(mode)) throw new Error(`output.mode must be paste, clipboard or none`);
      plan.text = text;
      plan.mode = mode;
      if (mode === "none") options.dictation.suppress(hook.pluginName, "output mode none");
    } catch (error) {
      plan.errors.push(failure(hook.pluginName, "beforeOutput", error));
    }
    return undefined;
  });
  return plan;
}
