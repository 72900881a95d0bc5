/**
 * The third argument of every mutating hook (Freestyle's `HookApi`): one per dictation, shared by
 * all its stages, so a plugin that consumes the dictation in `beforeTranscribe` or
 * `afterTranscribe` ends it for every stage after. The SDK's `HookApi` and `PipelineControl` types
 * are these (test/plugins/sdk-conformance.test.ts).
 */

/** Where a dictation's run stands: going on, handled by a plugin (nothing delivered), or stopped. */
export type PipelineControlState = "running" | "consumed" | "aborted";

/** What became of a dictation, as every answer reports it. */
export type Disposition = "deliver" | "suppressed" | "aborted";

/** The host's LLM, for plugins' own work (classify, extract, rewrite), with svc's llm_* settings. */
export interface PluginLlm {
  /** `openai-compatible`: svc speaks the chat-completions protocol to whatever llm_base_url names. */
  readonly providerId: string;
  /** The llm_model setting. */
  readonly modelId: string;
  /** A language model the Vercel AI SDK accepts (`generateText({ model: api.llm.getModel() })`). */
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
 * Cancellation and suppression for one dictation. `consume` and `abort` end the whole run;
 * `stopPropagation` only skips the remaining plugins of the hook being run.
 */
export interface PipelineControl {
  readonly state: PipelineControlState;
  /** The reason given to `consume` or `abort`. */
  readonly reason: string | undefined;
  /** Aborted by `abort()`: pass it to cancellable work. */
  readonly signal: AbortSignal;
  /** The remaining plugins of this hook are skipped; later hooks run. */
  stopPropagation(): void;
  /** The dictation is handled (a voice command ran): nothing is delivered, later stages skipped. */
  consume(reason?: string): void;
  /** Hard stop: nothing is delivered and a pipeline error is reported with `reason`. */
  abort(reason?: string): void;
}

/** The host's control: the plugin-facing members plus the runner's propagation flag. */
export class HostControl implements PipelineControl {
  readonly #controller = new AbortController();
  #state: PipelineControlState = "running";
  #reason: string | undefined;
  #stopped = false;

  get state(): PipelineControlState {
    return this.#state;
  }

  /** The reason given to `consume` or `abort`. */
  get reason(): string | undefined {
    return this.#reason;
  }

  /** Aborted by `abort()`: pass it to cancellable work. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The remaining plugins of this hook are skipped; later hooks run. */
  stopPropagation(): void {
    this.#stopped = true;
  }

  /** The dictation is handled (a voice command ran): nothing is delivered, later stages skipped. */
  consume(reason?: string): void {
    if (this.#state !== "running") return;
    this.#state = "consumed";
    this.#reason = reason;
    this.#stopped = true;
  }

  /** Hard stop: nothing is delivered and a pipeline error is reported with `reason`. */
  abort(reason?: string): void {
    if (this.#state !== "running") return;
    this.#state = "aborted";
    this.#reason = reason;
    this.#stopped = true;
    this.#controller.abort(reason);
  }

  /** @internal The host's: a new hook starts with propagation allowed again. */
  resetPropagationForNextHook(): void {
    this.#stopped = false;
  }

  /** @internal The host's: whether the current hook's remaining plugins are skipped. */
  get propagationStopped(): boolean {
    return this.#stopped;
  }
}

/** The `api` a mutating hook receives as its third argument. */
export interface HookApi {
  readonly control: PipelineControl;
  /** `control.signal`. */
  readonly signal: AbortSignal;
  /** Present when an LLM is configured (llm_base_url and llm_model). */
  readonly llm?: PluginLlm;
}

/** How a dictation ended, as its answer says it. */
export interface DictationOutcome {
  disposition: Disposition;
  /** The reason the plugin gave (or `output mode none`); null when delivered. */
  reason: string | null;
  /** The plugin that consumed, aborted or suppressed it; null when delivered. */
  consumedBy: string | null;
  /** The hook it did so in; null when delivered. */
  hook?: string | null;
}

/**
 * The host's side of one dictation's `api`: the object hooks receive, who ended the run, and the
 * outcome the answers report.
 */
export interface DictationApi {
  readonly api: HookApi;
  readonly control: HostControl;
  /** After `plugin`'s `hook` ran: remembers both when it was the one that ended the run. */
  settle(plugin: string, hook: string): void;
  /** `beforeOutput` chose mode `none`: suppressed by `plugin` unless the run ended before. */
  suppress(plugin: string, reason: string): void;
  /** True once consumed, aborted or suppressed: no later stage runs. */
  readonly ended: boolean;
  outcome(): DictationOutcome;
}

export function createDictationApi(options: { llm?: PluginLlm } = {}): DictationApi {
  const control = new HostControl();
  const api: HookApi = Object.freeze({
    control,
    signal: control.signal,
    ...(options.llm ? { llm: options.llm } : {}),
  });
  let by: string | null = null;
  let inHook: string | null = null;
  let suppressed: { reason: string } | null = null;
  return {
    api,
    control,
    settle(plugin, hook) {
      if (by !== null || control.state === "running") return;
      by = plugin;
      inHook = hook;
    },
    suppress(plugin, reason) {
      if (control.state !== "running" || suppressed) return;
      suppressed = { reason };
      by = plugin;
      inHook = "beforeOutput";
    },
    get ended() {
      return control.state !== "running" || suppressed !== null;
    },
    outcome() {
      const ended = { consumedBy: by, hook: inHook };
      if (control.state === "consumed")
        return { disposition: "suppressed", reason: control.reason ?? null, ...ended };
      if (control.state === "aborted")
        return { disposition: "aborted", reason: control.reason ?? null, ...ended };
      if (suppressed) return { disposition: "suppressed", reason: suppressed.reason, ...ended };
      return { disposition: "deliver", reason: null, consumedBy: null };
    },
  };
}

export const delivered: DictationOutcome = { disposition: "deliver", reason: null, consumedBy: null };
