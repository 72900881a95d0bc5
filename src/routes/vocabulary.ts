import type { VocabularyRepo } from "../db/vocabulary-repo.ts";
import type { EventBus } from "../events.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import {
  vocabularyCreateSchema,
  vocabularyLimits,
  vocabularyListQuerySchema,
  vocabularyPatchSchema,
  vocabularyTable,
} from "../lexicon/vocabulary-schemas.ts";
import { createKeyedRoutes } from "./keyed-routes.ts";
import { vocabularyReference } from "./vocabulary-docs.ts";

export interface VocabularyRouteDeps {
  vocabulary: VocabularyRepo;
  events: EventBus;
  docs: ApiDocs;
}

/** `/api/vocabulary`: terms that bias recognition. Every change publishes `vocabulary.changed`. */
export function createVocabularyRoutes(deps: VocabularyRouteDeps) {
  return createKeyedRoutes({
    docs: deps.docs,
    reference: vocabularyReference,
    repo: deps.vocabulary,
    events: deps.events,
    name: "vocabulary",
    exportColumns: ["term", "notes"],
    listQuery: vocabularyListQuerySchema,
    create: vocabularyCreateSchema,
    patch: vocabularyPatchSchema,
    table: vocabularyTable,
    limits: vocabularyLimits,
    full: `The vocabulary is full (${vocabularyLimits.maxEntries} terms); delete some first.`,
    one: "vocabulary term",
  });
}
