import type { DictionaryRepo } from "../db/dictionary-repo.ts";
import type { EventBus } from "../events.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import {
  dictionaryCreateSchema,
  dictionaryLimits,
  dictionaryListQuerySchema,
  dictionaryPatchSchema,
  dictionaryTable,
} from "../lexicon/dictionary-schemas.ts";
import { dictionaryReference } from "./dictionary-docs.ts";
import { createKeyedRoutes } from "./keyed-routes.ts";

export interface DictionaryRouteDeps {
  dictionary: DictionaryRepo;
  events: EventBus;
  docs: ApiDocs;
}

/** `/api/dictionary`: say the key, get the value. Every change publishes `dictionary.changed`. */
export function createDictionaryRoutes(deps: DictionaryRouteDeps) {
  return createKeyedRoutes({
    docs: deps.docs,
    reference: dictionaryReference,
    repo: deps.dictionary,
    events: deps.events,
    name: "dictionary",
    exportColumns: ["key", "value"],
    listQuery: dictionaryListQuerySchema,
    create: dictionaryCreateSchema,
    patch: dictionaryPatchSchema,
    table: dictionaryTable,
    limits: dictionaryLimits,
    full: `The dictionary is full (${dictionaryLimits.maxEntries} entries); delete some first.`,
    one: "dictionary entry",
  });
}
