import { defaultFormatStyle, type FormatStyle } from "../../formats/style.ts";
import {
  type AfterCleanupHook,
  type AppContext,
  type BeforeCleanupHook,
  type DictationSource,
  type HookError,
  runBeforeCleanup,
  runHooks,
} from "../../plugins/hooks.ts";
import { applyEndPunctuation, cleanTranscript } from "./cleanup/cleanup.ts";
import type { DictionaryMatcher } from "./dictionary-matcher.ts";
import { type LlmEndpoint, type LlmFailureReason, runLlmCleanup } from "./llm/cleanup.ts";

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
  /** Plugin hooks that run before `afterCleanup`: on the raw transcript, and before the LLM pass. */
  getTranscriptHooks?(): {
    afterTranscribe: readonly AfterCleanupHook[];
    beforeCleanup: readonly BeforeCleanupHook[];
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
  /** The plugin whose `afterTranscribe` hook consumed the transcript (a voice command), else null. */
  consumedBy: string | null;
}

export interface TextPipeline {
  run(input: PipelineInput): Promise<PipelineResult>;
  /** The dictionary alone, on a piece of text (a timed segment); usage is not counted. */
  dictionary(text: string): string;
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
    consumedBy: null,
  };
}

const noTranscriptHooks = { afterTranscribe: [], beforeCleanup: [] };

export function createTextPipeline(deps: TextPipelineDeps): TextPipeline {
  async function cleanup(
    input: PipelineInput,
    config: PipelineConfig,
    format: MatchedFormat | null,
    beforeCleanup: readonly BeforeCleanupHook[],
    errors: HookError[],
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
      { text: deterministic, raw: input.text, appContext: input.appContext ?? null, language, source },
      { timeoutMs: config.hookTimeoutMs },
    );
    errors.push(...before.errors);
    if (before.skipLlm) return { deterministic, text: deterministic };
    const instructions = [format?.instructions ?? "", ...before.instructions].filter(Boolean).join("\n");
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

  /** Logs each hook failure with its plugin and hook; the result carries them too. */
  function report(errors: readonly HookError[]): void {
    for (const error of errors) deps.logger.warn(error.message, { plugin: error.plugin, hook: error.hook });
  }

  return {
    async run(input) {
      const config = deps.getConfig();
      if (input.text.trim() === "") return blankResult(input.text, config.cleanupMode);
      const started = performance.now();
      const appContext = input.appContext ?? null;
      const source = input.source ?? "api";
      const early = deps.getTranscriptHooks?.() ?? noTranscriptHooks;
      const hookErrors: HookError[] = [];

      // afterTranscribe edits the raw transcript; a hook that consumes it (a voice command) makes
      // its text final: no cleanup, dictionary or afterCleanup.
      const transcribed =
        early.afterTranscribe.length === 0
          ? { text: input.text, errors: [], consumedBy: null }
          : await runHooks(
              early.afterTranscribe,
              { text: input.text, raw: input.text, appContext, language: input.language ?? null, source },
              input.text,
              { timeoutMs: config.hookTimeoutMs, hook: "afterTranscribe" },
            );
      hookErrors.push(...transcribed.errors);
      if (transcribed.consumedBy !== null) {
        report(hookErrors);
        return {
          ...blankResult(input.text, config.cleanupMode),
          text: transcribed.text,
          deterministic: transcribed.text,
          stages: {
            cleanup: { mode: config.cleanupMode, text: transcribed.text },
            dictionary: { text: transcribed.text, replacements: 0 },
            plugins: { text: transcribed.text, errors: hookErrors },
          },
          timings: { cleanup: 0, dictionary: 0, plugins: elapsed(started), total: elapsed(started) },
          consumedBy: transcribed.consumedBy,
        };
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
      );
      const cleanupMs = elapsed(cleanupStarted);

      const dictionaryStarted = performance.now();
      const dictionary = applyDictionary(cleaned.text);
      const dictionaryMs = elapsed(dictionaryStarted);

      // Hooks transform text; with nothing left to transform (only fillers were said) they are skipped.
      const pluginsStarted = performance.now();
      const hookInput = {
        text: dictionary.text,
        raw: input.text,
        appContext,
        language: input.language ?? null,
        source,
      };
      const plugins =
        dictionary.text === ""
          ? { text: "", errors: [] }
          : await runHooks(deps.getHooks(), hookInput, dictionary.text, { timeoutMs: config.hookTimeoutMs });
      const errors = [...hookErrors, ...plugins.errors];
      report(errors);
      const pluginsMs = transcriptHooksMs + elapsed(pluginsStarted);

      return {
        text: plugins.text,
        raw: input.text,
        deterministic: cleaned.deterministic,
        stages: {
          cleanup: { mode: config.cleanupMode, text: cleaned.text, ...pickFallback(cleaned) },
          dictionary,
          plugins: { text: plugins.text, errors },
        },
        timings: {
          cleanup: cleanupMs,
          dictionary: dictionaryMs,
          plugins: pluginsMs,
          total: elapsed(started),
        },
        format: format ? { id: format.id, label: format.label } : null,
        consumedBy: null,
      };
    },
    dictionary: (text) => deps.getDictionary().apply(text).text,
  };
}

const pickFallback = (cleaned: CleanupOutcome) => (cleaned.fallback ? { fallback: cleaned.fallback } : {});
