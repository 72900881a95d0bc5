import type * as v from "valibot";
import type { DictionaryRepo } from "../db/dictionary-repo.ts";
import type { FormatsRepo } from "../db/formats-repo.ts";
import type { VocabularyRepo } from "../db/vocabulary-repo.ts";
import { formatItemSchema, formatLimits } from "../formats/schemas.ts";
import { dictionaryItemSchema, dictionaryLimits } from "../lexicon/dictionary-schemas.ts";
import { vocabularyItemSchema, vocabularyLimits } from "../lexicon/vocabulary-schemas.ts";
import { type DataSection, defineSection } from "./transfer.ts";

/**
 * The lists in an export document, in document order. Each validates with the schema and limits
 * of its own import route, so a whole-data import accepts exactly what the per-list imports do.
 */
export function createDataSections(repos: {
  dictionary: DictionaryRepo;
  vocabulary: VocabularyRepo;
  formats: FormatsRepo;
}): Record<string, DataSection> {
  return {
    dictionary: defineSection<v.InferOutput<typeof dictionaryItemSchema>>({
      item: dictionaryItemSchema,
      event: "dictionary.changed",
      exportAll: () => repos.dictionary.exportAll(),
      importAll: (items, mode) =>
        repos.dictionary.importAll(items, { mode, maxEntries: dictionaryLimits.maxEntries }),
    }),
    vocabulary: defineSection<v.InferOutput<typeof vocabularyItemSchema>>({
      item: vocabularyItemSchema,
      event: "vocabulary.changed",
      exportAll: () => repos.vocabulary.exportAll(),
      importAll: (items, mode) =>
        repos.vocabulary.importAll(items, { mode, maxEntries: vocabularyLimits.maxEntries }),
    }),
    formats: defineSection<v.InferOutput<typeof formatItemSchema>>({
      item: formatItemSchema,
      event: "formats.changed",
      exportAll: () => repos.formats.exportAll(),
      importAll: (items, mode) =>
        repos.formats.importAll(items, { mode, maxEntries: formatLimits.maxFormats }),
    }),
  };
}
