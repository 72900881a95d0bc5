import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { VocabularyRepo } from "../db/vocabulary-repo.ts";
import { AppError, notFound, payloadTooLarge } from "../errors.ts";
import type { EventBus } from "../events.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { readId } from "../http/params.ts";
import { exportQuerySchema, importQuerySchema, readTable, sendTable } from "../http/table-io.ts";
import type { AppEnv } from "../http/types.ts";
import { readJson, readQuery } from "../http/validate.ts";
import { documentVocabulary } from "./vocabulary-docs.ts";
import {
  vocabularyCreateSchema,
  vocabularyLimits,
  vocabularyListQuerySchema,
  vocabularyPatchSchema,
  vocabularyTable,
} from "./vocabulary-schemas.ts";

export interface VocabularyRouteDeps {
  vocabulary: VocabularyRepo;
  events: EventBus;
  docs: ApiDocs;
}

const { maxEntries, maxImportBytes } = vocabularyLimits;

const importLimit = bodyLimit({
  maxSize: maxImportBytes,
  onError: () => {
    throw payloadTooLarge(`An import file may be at most ${maxImportBytes} bytes.`, {
      limit: maxImportBytes,
    });
  },
});

/** `/api/vocabulary`: terms that bias recognition. Every change publishes `vocabulary.changed`. */
export function createVocabularyRoutes(deps: VocabularyRouteDeps) {
  const { vocabulary, events } = deps;
  documentVocabulary(deps.docs);
  const changed = (action: string, data: Record<string, unknown> = {}) =>
    events.publish("vocabulary.changed", { action, ...data });
  const found = (id: number) => vocabulary.get(id) ?? missing(id);

  return new Hono<AppEnv>()
    .get("/", (c) => c.json(vocabulary.list(readQuery(c, vocabularyListQuerySchema))))
    .get("/export", (c) => {
      const { format } = readQuery(c, exportQuerySchema);
      return sendTable(c, "svc-vocabulary", format, ["term", "notes"], vocabulary.exportAll());
    })
    .post("/import", importLimit, async (c) => {
      const { mode } = readQuery(c, importQuerySchema);
      const items = await readTable(c, vocabularyTable);
      const summary = vocabulary.importAll(items, { mode, maxEntries });
      if (summary.created + summary.updated + summary.deleted > 0) changed("imported", { mode, ...summary });
      return c.json(summary);
    })
    .get("/:id", (c) => c.json(found(readId(c))))
    .post("/", async (c) => {
      const item = await readJson(c, vocabularyCreateSchema);
      if (vocabulary.count() >= maxEntries) {
        throw new AppError(
          413,
          "limit_exceeded",
          `The vocabulary is full (${maxEntries} terms); delete some first.`,
        );
      }
      const entry = vocabulary.create(item);
      changed("created", { id: entry.id });
      return c.json(entry, 201, { Location: `/api/vocabulary/${entry.id}` });
    })
    .patch("/:id", async (c) => {
      const id = readId(c);
      const patch = await readJson(c, vocabularyPatchSchema);
      const entry = vocabulary.update(id, patch) ?? missing(id);
      changed("updated", { id });
      return c.json(entry);
    })
    .delete("/:id", (c) => {
      const id = readId(c);
      if (!vocabulary.remove(id)) missing(id);
      changed("deleted", { id });
      return c.body(null, 204);
    });
}

function missing(id: number): never {
  throw notFound(`No vocabulary term has id ${id}.`, { id });
}
