import { compileDictionary, type DictionaryEntry } from "../../src/dictation/text/dictionary-matcher.ts";
import type { MatchedFormat, PipelineConfig, TextPipelineDeps } from "../../src/dictation/text/pipeline.ts";
import type { AfterCleanupHook, AppContext } from "../../src/plugins/hooks.ts";

// The text pipeline's ports as plain functions that record how they were called: the pipeline
// is tested without a database, a settings service or a plugin host.

export interface Harness {
  deps: TextPipelineDeps;
  usage: Map<number, number>[];
  warnings: { message: string; fields?: object }[];
  formatQueries: (AppContext | null)[];
  calls: string[];
}

const baseConfig: PipelineConfig = { cleanupMode: "basic", extraFillers: [], llm: null, hookTimeoutMs: 200 };

export function harness(
  options: {
    config?: Partial<PipelineConfig>;
    dictionary?: DictionaryEntry[];
    /** The hooks, or where to read them on each run (a plugin host's `hooks()`). */
    hooks?: readonly AfterCleanupHook[] | (() => readonly AfterCleanupHook[]);
    format?: MatchedFormat | null;
    vocabulary?: string[];
    recordFails?: boolean;
  } = {},
): Harness {
  const usage: Map<number, number>[] = [];
  const warnings: { message: string; fields?: object }[] = [];
  const formatQueries: (AppContext | null)[] = [];
  const calls: string[] = [];
  const matcher = compileDictionary(options.dictionary ?? []);
  const deps: TextPipelineDeps = {
    getConfig: () => {
      calls.push("getConfig");
      return { ...baseConfig, ...options.config };
    },
    matchFormat: (appContext) => {
      calls.push("matchFormat");
      formatQueries.push(appContext);
      return options.format ?? null;
    },
    getDictionary: () => {
      calls.push("getDictionary");
      return matcher;
    },
    recordDictionaryUsage: (hits) => {
      if (options.recordFails) throw new Error("database is locked");
      usage.push(new Map(hits));
    },
    getVocabulary: () => options.vocabulary ?? [],
    getHooks: () => {
      calls.push("getHooks");
      return typeof options.hooks === "function" ? options.hooks() : (options.hooks ?? []);
    },
    logger: { warn: (message, fields) => warnings.push({ message, ...(fields ? { fields } : {}) }) },
  };
  return { deps, usage, warnings, formatQueries, calls };
}
