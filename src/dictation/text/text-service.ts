import type { AfterCleanupHook } from "../../plugins/hooks.ts";
import type { Services } from "../../services.ts";
import { compileDictionary, type DictionaryMatcher } from "./dictionary-matcher.ts";
import {
  createTextPipeline,
  type PipelineConfig,
  type TextPipeline,
  type TextPipelineDeps,
} from "./pipeline.ts";

/** Rebuilds a value only when its source's version counter moves. */
export function cachedByVersion<T>(version: () => number, build: () => T): () => T {
  let builtAt = -1;
  let value: T | undefined;
  return () => {
    const current = version();
    if (value === undefined || current !== builtAt) {
      value = build();
      builtAt = current;
    }
    return value;
  };
}

/**
 * The text pipeline over svc's own data: settings read per run (from memory), the dictionary
 * compiled once per change, formats matched by the compiled matcher, hooks from the plugin host.
 */
export function createTextService(
  services: Services,
  sources: {
    hooks: () => readonly AfterCleanupHook[];
    transcriptHooks?: TextPipelineDeps["getTranscriptHooks"];
    /** The vocabulary terms, cached by the caller (the speech engines read the same list). */
    vocabulary: () => readonly string[];
  },
  logger: { warn(message: string, fields?: object): void },
): TextPipeline {
  const { settings, dictionary, formatMatcher } = services;
  const getDictionary = cachedByVersion<DictionaryMatcher>(dictionary.version, () =>
    compileDictionary(dictionary.entries()),
  );
  const getConfig = (): PipelineConfig => {
    const baseUrl = settings.get("llm_base_url");
    const model = settings.get("llm_model");
    return {
      cleanupMode: settings.get("cleanup_mode"),
      extraFillers: settings.get("filler_words"),
      llm:
        baseUrl && model
          ? { baseUrl, model, apiKey: settings.get("llm_api_key"), timeoutMs: settings.get("llm_timeout_ms") }
          : null,
      hookTimeoutMs: settings.get("hook_timeout_ms"),
    };
  };
  return createTextPipeline({
    getConfig,
    matchFormat: (context) => {
      const format = formatMatcher.match(context);
      return format
        ? { id: format.id, label: format.label, instructions: format.instructions, style: format.style }
        : null;
    },
    getDictionary,
    recordDictionaryUsage: (hits) => dictionary.recordUsage(hits),
    getVocabulary: sources.vocabulary,
    getHooks: sources.hooks,
    ...(sources.transcriptHooks ? { getTranscriptHooks: sources.transcriptHooks } : {}),
    logger,
  });
}
