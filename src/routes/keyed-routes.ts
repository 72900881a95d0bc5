import * as v from "valibot";
import type { KeyedRepo } from "../db/keyed-repo.ts";
import type { ListQuery } from "../db/list-sql.ts";
import { AppError, notFound } from "../errors.ts";
import type { EventBus } from "../events.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { documentedRoutes } from "../http/documented-routes.ts";
import { idParamsSchema } from "../http/params.ts";
import {
  exportQuerySchema,
  importQuerySchema,
  importSummarySchema,
  readTable,
  sendTable,
} from "../http/table-io.ts";
import type { TableSpec } from "../lexicon/table-spec.ts";
import { pageSchema } from "../lists.ts";
import type { KeyedDocsSpec } from "./keyed-docs.ts";

export interface KeyedRoutesSpec<E extends { id: number }, I, F extends string, X extends object> {
  repo: KeyedRepo<E, I, F, X>;
  events: EventBus;
  /** Names the path (`/api/<name>`), the event (`<name>.changed`) and the export file (`svc-<name>`). */
  name: "dictionary" | "vocabulary";
  exportColumns: readonly (keyof X & string)[];
  listQuery: v.GenericSchema<unknown, ListQuery<F>>;
  create: v.GenericSchema<unknown, I>;
  patch: v.GenericSchema<unknown, Partial<I>>;
  table: TableSpec<v.GenericSchema<unknown, I>>;
  limits: { maxEntries: number };
  /** The 413 message when a create would go past maxEntries. */
  full: string;
  /** What is missing, for the 404: "dictionary entry". */
  one: string;
}

/**
 * List, get, create, patch, delete, import and export over a keyed repository, each declared with
 * its API reference entry; each change publishes an event.
 */
export function createKeyedRoutes<E extends { id: number }, I, F extends string, X extends object>(
  spec: KeyedRoutesSpec<E, I, F, X> & { docs: ApiDocs; reference: KeyedDocsSpec },
) {
  const { repo, events, name, reference } = spec;
  const { text, entry } = reference;
  // The import file's size is bounded by SVC_MAX_IMPORT_SIZE (the route's bodyKind).
  const { maxEntries } = spec.limits;
  const one = { description: reference.entryDescription, schema: entry };
  const changed = (action: string, data: Record<string, unknown> = {}) =>
    events.publish(`${name}.changed`, { action, ...data });
  const missing = (id: number): never => {
    throw notFound(`No ${spec.one} has id ${id}.`, { id });
  };
  const found = (id: number) => repo.get(id) ?? missing(id);

  return documentedRoutes(spec.docs, `/api/${name}`, reference.tag)
    .get(
      "/",
      {
        ...text.list,
        access: "dictate",
        query: spec.listQuery,
        responses: { 200: { description: "One page", schema: pageSchema(entry) } },
      },
      (c) => c.json(repo.list(c.req.valid("query"))),
    )
    .get(
      "/export",
      {
        ...text.export,
        access: "dictate",
        query: exportQuerySchema,
        responses: { 200: { description: "The file", schema: v.array(reference.exportRow) } },
      },
      (c) => {
        const { format } = c.req.valid("query");
        return sendTable(c, `svc-${name}`, format, spec.exportColumns, repo.exportAll());
      },
    )
    .post(
      "/import",
      {
        ...text.import,
        query: importQuerySchema,
        body: reference.importBody,
        // A JSON array or CSV, each row checked and any bad one reported by its place.
        readsOwnBody: true,
        bodyTypes: ["text/csv"],
        bodyKind: "import",
        responses: { 200: { description: "What changed", schema: importSummarySchema } },
        errors: ["invalid_import", "invalid_csv", "limit_exceeded"],
      },
      async (c) => {
        const { mode } = c.req.valid("query");
        const items = await readTable(c, spec.table);
        const summary = repo.importAll(items, { mode, maxEntries });
        if (summary.created + summary.updated + summary.deleted > 0)
          changed("imported", { mode, ...summary });
        return c.json(summary);
      },
    )
    .get("/:id", { ...text.get, access: "dictate", params: idParamsSchema, responses: { 200: one } }, (c) =>
      c.json(found(c.req.valid("param").id)),
    )
    .post(
      "/",
      {
        ...text.create,
        body: spec.create,
        responses: { 201: { description: "Created", schema: entry } },
        errors: ["conflict", "limit_exceeded"],
      },
      (c) => {
        const item = c.req.valid("json");
        if (repo.count() >= maxEntries) throw new AppError("limit_exceeded", spec.full);
        const created = repo.create(item);
        changed("created", { id: created.id });
        return c.json(created, 201, { Location: `/api/${name}/${created.id}` });
      },
    )
    .patch(
      "/:id",
      {
        ...text.patch,
        params: idParamsSchema,
        body: spec.patch,
        responses: { 200: one },
        errors: ["conflict"],
      },
      (c) => {
        const { id } = c.req.valid("param");
        const patch = c.req.valid("json");
        const updated = repo.update(id, patch) ?? missing(id);
        changed("updated", { id });
        return c.json(updated);
      },
    )
    .delete(
      "/:id",
      { ...text.remove, params: idParamsSchema, responses: { 204: { description: "Deleted" } } },
      (c) => {
        const { id } = c.req.valid("param");
        if (!repo.remove(id)) missing(id);
        changed("deleted", { id });
        return c.body(null, 204);
      },
    );
}
