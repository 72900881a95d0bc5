import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { DictionaryRepo } from "../db/dictionary-repo.ts";
import { AppError, notFound, payloadTooLarge } from "../errors.ts";
import type { EventBus } from "../events.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { readId } from "../http/params.ts";
import { exportQuerySchema, importQuerySchema, readTable, sendTable } from "../http/table-io.ts";
import type { AppEnv } from "../http/types.ts";
import { readJson, readQuery } from "../http/validate.ts";
import { documentDictionary } from "./dictionary-docs.ts";
import {
  dictionaryCreateSchema,
  dictionaryLimits,
  dictionaryListQuerySchema,
  dictionaryPatchSchema,
  dictionaryTable,
} from "./dictionary-schemas.ts";

export interface DictionaryRouteDeps {
  dictionary: DictionaryRepo;
  events: EventBus;
  docs: ApiDocs;
}

const { maxEntries, maxImportBytes } = dictionaryLimits;

const importLimit = bodyLimit({
  maxSize: maxImportBytes,
  onError: () => {
    throw payloadTooLarge(`An import file may be at most ${maxImportBytes} bytes.`, {
      limit: maxImportBytes,
    });
  },
});

/** `/api/dictionary`: say the key, get the value. Every change publishes `dictionary.changed`. */
export function createDictionaryRoutes(deps: DictionaryRouteDeps) {
  const { dictionary, events } = deps;
  documentDictionary(deps.docs);
  const changed = (action: string, data: Record<string, unknown> = {}) =>
    events.publish("dictionary.changed", { action, ...data });
  const found = (id: number) => dictionary.get(id) ?? missing(id);

  return new Hono<AppEnv>()
    .get("/", (c) => c.json(dictionary.list(readQuery(c, dictionaryListQuerySchema))))
    .get("/export", (c) => {
      const { format } = readQuery(c, exportQuerySchema);
      return sendTable(c, "svc-dictionary", format, ["key", "value"], dictionary.exportAll());
    })
    .post("/import", importLimit, async (c) => {
      const { mode } = readQuery(c, importQuerySchema);
      const items = await readTable(c, dictionaryTable);
      const summary = dictionary.importAll(items, { mode, maxEntries });
      if (summary.created + summary.updated + summary.deleted > 0) changed("imported", { mode, ...summary });
      return c.json(summary);
    })
    .get("/:id", (c) => c.json(found(readId(c))))
    .post("/", async (c) => {
      const item = await readJson(c, dictionaryCreateSchema);
      if (dictionary.count() >= maxEntries) {
        throw new AppError(
          413,
          "limit_exceeded",
          `The dictionary is full (${maxEntries} entries); delete some first.`,
        );
      }
      const entry = dictionary.create(item);
      changed("created", { id: entry.id });
      return c.json(entry, 201, { Location: `/api/dictionary/${entry.id}` });
    })
    .patch("/:id", async (c) => {
      const id = readId(c);
      const patch = await readJson(c, dictionaryPatchSchema);
      const entry = dictionary.update(id, patch) ?? missing(id);
      changed("updated", { id });
      return c.json(entry);
    })
    .delete("/:id", (c) => {
      const id = readId(c);
      if (!dictionary.remove(id)) missing(id);
      changed("deleted", { id });
      return c.body(null, 204);
    });
}

function missing(id: number): never {
  throw notFound(`No dictionary entry has id ${id}.`, { id });
}
