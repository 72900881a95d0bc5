import { defaultFormatStyle, type FormatStyle } from "../../formats/style.ts";
import {
  createDictationApi,
  type DictationApi,
  type DictationOutcome,
  delivered,
} from "../../plugins/hook-api.ts";
import {
  type AfterCleanupHook,
  type AfterTranscribeHook,
  type AppContext,
  type BeforeCleanupHook,
  type DictationSource,
  type HookError,
  type HookInput,
  hookAppContext,
  runBeforeCleanup,
  runHooks,
} from "../../plugins/hooks.ts";
import { type BeforeOutputHook, type OutputMode, runBeforeOutput } from "../../plugins/hooks-output.ts";
import { applyEndPunctuation, cleanTranscript } from "./cleanup/cleanup.ts";
import type { DictionaryMatcher } from "./dictionary-matcher.ts";
import { type LlmEndpoint, type LlmFailureReason, runLlmCleanup } from "./llm/cleanup.ts";
import { createPluginLlm } from "./llm/plugin-llm.ts";

/**
 * The text pipeline (docs/SPEC.md §1): cleanup, then the dictionary, then plugin `afterCleanup`
 * hooks, always in that order. It works on text alone; its dependencies are plain functions so
 * the caller decides what is cached (the compiled dictionary) and what is read fresh (settings).
 */

export type CleanupMode = "off" | "basic" | "llm";

export interface PipelineConfig {
  cleanupMode: CleanupMode;
  extraFillers: readonly string[];
  /** The LLM endpoint for `cleanupMode: "llm"`; null when none is configured. */
  llm: (LlmEndpoint & { timeoutMs: number }) | null;
  hookTimeoutMs: number;
}

export interface MatchedFormat {
  id: number;
  label: string;
  instructions: string;
  style: FormatStyle;
}

export interface TextPipelineDeps {
  getConfig(): PipelineConfig;
  matchFormat(appContext: AppContext | null): MatchedFormat | null;
  /** The compiled dictionary; compiling is the caller's job, once per dictionary change. */
  getDictionary(): DictionaryMatcher;
  /** Called at most once per run, and only when at least one entry was used. */
  recordDictionaryUsage(hits: Map<number, number>): void;
  getVocabulary(): readonly string[];
  getHooks(): readonly AfterCleanupHook[];
  /**
   * Plugin hooks besides `afterCleanup`: on the raw transcript, before the LLM pass, and
   * `beforeOutput` after everything.
   */
  getTranscriptHooks?(): {
    afterTranscribe: readonly AfterTranscribeHook[];
    beforeCleanup: readonly BeforeCleanupHook[];
    beforeOutput?: readonly BeforeOutputHook[];
  };
  logger: { warn(message: string, fields?: object): void };
}

export interface PipelineInput {
  text: string;
  appContext?: AppContext | null;
  language?: string | null;
  /** The door the dictation came in by, for the plugin hooks; default `api` (text sent to /api/post-process). */
  source?: DictationSource;
  /** Cancels the LLM call when the client goes away. */
  signal?: AbortSignal;
  /** The dictation's hook `api`, shared with its beforeTranscribe hooks; default a new one. */
  dictation?: DictationApi;
  /** The engine and model that produced `text` (hooks' providerId/modelId); default `none`. */
  engine?: { id: string; model: string };
}

export type CleanupFallbackReason = LlmFailureReason | "not_configured";

export interface PipelineResult {
  text: string;
  raw: string;
  /** The deterministic cleanup's output (the trimmed raw text when cleanup is off). */
  deterministic: string;
  stages: {
    cleanup: {
      mode: CleanupMode;
      text: string;
      fallback?: { reason: CleanupFallbackReason; detail: string };
    };
    dictionary: { text: string; replacements: number };
    plugins: { text: string; errors: HookError[] };
  };
  /** Milliseconds per stage; `cleanup` includes the LLM call. */
  timings: { cleanup: number; dictionary: number; plugins: number; total: number };
  format: { id: number; label: string } | null;
  /** `deliver`, or `suppressed`/`aborted` by a plugin: then `text` is empty. */
  disposition: DictationOutcome["disposition"];
  /** Why a plugin suppressed or aborted it; null when delivered. */
  reason: string | null;
  /** The plugin that consumed (suppressed or aborted) the dictation, else null. */
  consumedBy: string | null;
  /** The plugin whose `afterTranscribe` hook made its text final (no cleanup or later hooks), else null. */
  finalBy: string | null;
  /** How the client should deliver the text, as `beforeOutput` hooks left it (`none` when suppressed). */
  mode: OutputMode;
}

export interface TextPipeline {
  run(input: PipelineInput): Promise<PipelineResult>;
  /** The dictionary alone, on a piece of text (a timed segment); usage is not counted. */
  dictionary(text: string): string;
  /** A new dictation's hook `api`, with `api.llm` when an LLM is configured. */
  newDictation(): DictationApi;
}

const elapsed = (since: number): number => Math.round((performance.now() - since) * 1000) / 1000;

interface CleanupOutcome {
  deterministic: string;
  text: string;
  fallback?: { reason: CleanupFallbackReason; detail: string };
}

/** Blank input answers at once: no format lookup, no cleanup, no dictionary, no hooks. */
function blankResult(raw: string, mode: CleanupMode): PipelineResult {
  return {
    text: "",
    raw,
    deterministic: "",
    stages: {
      cleanup: { mode, text: "" },
      dictionary: { text: "", replacements: 0 },
      plugins: { text: "", errors: [] },
    },
    timings: { cleanup: 0, dictionary: 0, plugins: 0, total: 0 },
    format: null,
    ...delivered,
    finalBy: null,
    mode: "paste",
  };
}

/** A result that delivers nothing: what a plugin's consume, abort or `mode: none` leaves. */
export function endedResult(result: PipelineResult, outcome: DictationOutcome): PipelineResult {
  if (outcome.disposition === "deliver") return result;
  const { disposition, reason, consumedBy } = outcome;
  return { ...result, text: "", disposition, reason, consumedBy, mode: "none" };
}

const noTranscriptHooks = { afterTranscribe: [], beforeCleanup: [], beforeOutput: [] };

export function createTextPipeline(deps: TextPipelineDeps): TextPipeline {
  async function cleanup(
    input: PipelineInput,
    config: PipelineConfig,
    format: MatchedFormat | null,
    beforeCleanup: readonly BeforeCleanupHook[],
    errors: HookError[],
    hooks: { dictation: DictationApi; providerId: string; modelId: string },
  ): Promise<CleanupOutcome> {
    const style = format?.style ?? defaultFormatStyle;
    const language = input.language ?? null;
    const source = input.source ?? "api";
    if (config.cleanupMode === "off") return { deterministic: input.text.trim(), text: input.text.trim() };
    const deterministic = cleanTranscript(input.text, {
      ...style,
      extraFillers: config.extraFillers,
      language,
    });
    if (config.cleanupMode === "basic" || deterministic === "") return { deterministic, text: deterministic };
    if (config.llm === null) {
      const detail = "cleanup_mode is llm but no LLM endpoint is configured";
      return { deterministic, text: deterministic, fallback: { reason: "not_configured", detail } };
    }
    // Plugins may add instructions to the LLM pass, or skip it for this text.
    const before = await runBeforeCleanup(
      beforeCleanup,
      {
        text: deterministic,
        raw: input.text,
        appContext: hookAppContext(input.appContext ?? null),
        language,
        source,
        providerId: hooks.providerId,
        modelId: hooks.modelId,
        destination: "overall",
      },
      { timeoutMs: config.hookTimeoutMs, dictation: hooks.dictation },
    );
    errors.push(...before.errors);
    // Consumed or aborted here: nothing will be delivered, so the LLM is not asked.
    if (before.skipLlm || hooks.dictation.ended) return { deterministic, text: deterministic };
    const instructions =
      before.prompt ?? [format?.instructions ?? "", ...before.instructions].filter(Boolean).join("\n");
    const result = await runLlmCleanup(config.llm, {
      text: deterministic,
      instructions: instructions || null,
      vocabulary: deps.getVocabulary(),
      language,
      timeoutMs: config.llm.timeoutMs,
      ...(input.signal ? { signal: input.signal } : {}),
    });
    if (result.ok) return { deterministic, text: applyEndPunctuation(result.text, style.endPunctuation) };
    deps.logger.warn("LLM cleanup fell back to the deterministic text", {
      reason: result.reason,
      detail: result.detail,
    });
    return { deterministic, text: deterministic, fallback: { reason: result.reason, detail: result.detail } };
  }

  function applyDictionary(text: string): { text: string; replacements: number } {
    const { text: replaced, hits } = deps.getDictionary().apply(text);
    if (hits.size === 0) return { text, replacements: 0 };
    try {
      deps.recordDictionaryUsage(hits);
    } catch (error) {
      // Usage counts are bookkeeping; failing to write them must not fail the dictation.
      deps.logger.warn("could not record dictionary usage", { error: String(error) });
    }
    let replacements = 0;
    for (const count of hits.values()) replacements += count;
    return { text: replaced, replacements };
  }

  /** `beforeOutput`, the last text stage: the text and how to deliver it (blank text is left alone). */
  async function deliver(
    text: string,
    view: Omit<HookInput, "text" | "signal">,
    hooks: readonly BeforeOutputHook[],
    errors: HookError[],
    config: PipelineConfig,
    dictation: DictationApi,
  ): Promise<{ text: string; mode: OutputMode }> {
    if (text === "" || hooks.length === 0) return { text, mode: "paste" };
    const plan = await runBeforeOutput(
      hooks,
      { ...view, text },
      { text, mode: "paste" },
      {
        timeoutMs: config.hookTimeoutMs,
        dictation,
      },
    );
    errors.push(...plan.errors);
    return { text: plan.text, mode: plan.mode };
  }

  /** Logs each hook failure with its plugin and hook; the result carries them too. */
  function report(errors: readonly HookError[]): void {
    for (const error of errors) deps.logger.warn(error.message, { plugin: error.plugin, hook: error.hook });
  }

  function newDictation(config: PipelineConfig = deps.getConfig()): DictationApi {
    return createDictationApi(config.llm ? { llm: createPluginLlm(config.llm) } : {});
  }

  return {
    async run(input) {
      const config = deps.getConfig();
      const dictation = input.dictation ?? newDictation(config);
      // Consumed or aborted before any text (in beforeTranscribe): nothing runs, nothing is delivered.
      if (dictation.ended)
        return endedResult(blankResult(input.text, config.cleanupMode), dictation.outcome());
      if (input.text.trim() === "") return blankResult(input.text, config.cleanupMode);
      const started = performance.now();
      const appContext = input.appContext ?? null;
      const hookView = {
        raw: input.text,
        appContext: hookAppContext(appContext),
        language: input.language ?? null,
        source: input.source ?? "api",
        providerId: input.engine?.id ?? "none",
        modelId: input.engine?.model ?? "none",
      };
      const hooks = { dictation, providerId: hookView.providerId, modelId: hookView.modelId };
      const early = { ...noTranscriptHooks, ...deps.getTranscriptHooks?.() };
      const hookErrors: HookError[] = [];
      const finish = (result: PipelineResult) => {
        report(result.stages.plugins.errors);
        return endedResult(result, dictation.outcome());
      };

      // afterTranscribe edits the raw transcript; a hook may make its text final (no cleanup,
      // dictionary or afterCleanup) or consume the dictation (nothing at all is delivered).
      const transcribed = await runHooks(
        early.afterTranscribe,
        { ...hookView, text: input.text },
        input.text,
        {
          timeoutMs: config.hookTimeoutMs,
          hook: "afterTranscribe",
          dictation,
        },
      );
      hookErrors.push(...transcribed.errors);
      if (transcribed.finalBy !== null || dictation.ended) {
        const output = await deliver(
          transcribed.text,
          hookView,
          early.beforeOutput,
          hookErrors,
          config,
          dictation,
        );
        return finish({
          ...blankResult(input.text, config.cleanupMode),
          text: output.text,
          deterministic: transcribed.text,
          stages: {
            cleanup: { mode: config.cleanupMode, text: transcribed.text },
            dictionary: { text: transcribed.text, replacements: 0 },
            plugins: { text: transcribed.text, errors: hookErrors },
          },
          timings: { cleanup: 0, dictionary: 0, plugins: elapsed(started), total: elapsed(started) },
          finalBy: transcribed.finalBy,
          mode: output.mode,
        });
      }

      // afterTranscribe hooks count as plugin time, not cleanup.
      const transcriptHooksMs = early.afterTranscribe.length === 0 ? 0 : elapsed(started);
      const cleanupStarted = performance.now();
      const format = deps.matchFormat(appContext);
      const cleaned = await cleanup(
        { ...input, text: transcribed.text },
        config,
        format,
        early.beforeCleanup,
        hookErrors,
        hooks,
      );
      const cleanupMs = elapsed(cleanupStarted);

      const dictionaryStarted = performance.now();
      const dictionary = applyDictionary(cleaned.text);
      const dictionaryMs = elapsed(dictionaryStarted);

      // Hooks transform text; with nothing left to transform (only fillers were said) they are skipped.
      const pluginsStarted = performance.now();
      const plugins =
        dictionary.text === ""
          ? { text: "", errors: [] }
          : await runHooks(deps.getHooks(), { ...hookView, text: dictionary.text }, dictionary.text, {
              timeoutMs: config.hookTimeoutMs,
              dictation,
            });
      hookErrors.push(...plugins.errors);
      const output = await deliver(plugins.text, hookView, early.beforeOutput, hookErrors, config, dictation);
      const pluginsMs = transcriptHooksMs + elapsed(pluginsStarted);

      return finish({
        text: output.text,
        raw: input.text,
        deterministic: cleaned.deterministic,
        stages: {
          cleanup: { mode: config.cleanupMode, text: cleaned.text, ...pickFallback(cleaned) },
          dictionary,
          plugins: { text: plugins.text, errors: hookErrors },
        },
        timings: {
          cleanup: cleanupMs,
          dictionary: dictionaryMs,
          plugins: pluginsMs,
          total: elapsed(started),
        },
        format: format ? { id: format.id, label: format.label } : null,
        ...delivered,
        finalBy: null,
        mode: output.mode,
      });
    },
    newDictation: () => newDictation(),
    dictionary: (text) => deps.getDictionary().apply(text).text,
  };
}

const pickFallback = (cleaned: CleanupOutcome) => (cleaned.fallback ? { fallback: cleaned.fallback } : {});
