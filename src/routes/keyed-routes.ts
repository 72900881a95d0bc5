import { Hono } from "hono";
import type * as v from "valibot";
import type { TableSpec } from "../data/table-spec.ts";
import type { KeyedRepo } from "../db/keyed-repo.ts";
import type { ListQuery } from "../db/list-sql.ts";
import { AppError, notFound } from "../errors.ts";
import type { EventBus } from "../events.ts";
import { readId } from "../http/params.ts";
import { exportQuerySchema, importQuerySchema, readTable, sendTable } from "../http/table-io.ts";
import type { AppEnv } from "../http/types.ts";
import { readJson, readQuery } from "../http/validate.ts";

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

/** List, get, create, patch, delete, import and export over a keyed repository; each change publishes an event. */
export function createKeyedRoutes<E extends { id: number }, I, F extends string, X extends object>(
  spec: KeyedRoutesSpec<E, I, F, X>,
) {
  const { repo, events, name } = spec;
  // The import file's size is bounded by SVC_MAX_IMPORT_SIZE (bodyKindOf in app.ts).
  const { maxEntries } = spec.limits;
  const changed = (action: string, data: Record<string, unknown> = {}) =>
    events.publish(`${name}.changed`, { action, ...data });
  const missing = (id: number): never => {
    throw notFound(`No ${spec.one} has id ${id}.`, { id });
  };
  const found = (id: number) => repo.get(id) ?? missing(id);

  return new Hono<AppEnv>()
    .get("/", (c) => c.json(repo.list(readQuery(c, spec.listQuery))))
    .get("/export", (c) => {
      const { format } = readQuery(c, exportQuerySchema);
      return sendTable(c, `svc-${name}`, format, spec.exportColumns, repo.exportAll());
    })
    .post("/import", async (c) => {
      const { mode } = readQuery(c, importQuerySchema);
      const items = await readTable(c, spec.table);
      const summary = repo.importAll(items, { mode, maxEntries });
      if (summary.created + summary.updated + summary.deleted > 0) changed("imported", { mode, ...summary });
      return c.json(summary);
    })
    .get("/:id", (c) => c.json(found(readId(c))))
    .post("/", async (c) => {
      const item = await readJson(c, spec.create);
      if (repo.count() >= maxEntries) throw new AppError("limit_exceeded", spec.full);
      const entry = repo.create(item);
      changed("created", { id: entry.id });
      return c.json(entry, 201, { Location: `/api/${name}/${entry.id}` });
    })
    .patch("/:id", async (c) => {
      const id = readId(c);
      const patch = await readJson(c, spec.patch);
      const entry = repo.update(id, patch) ?? missing(id);
      changed("updated", { id });
      return c.json(entry);
    })
    .delete("/:id", (c) => {
      const id = readId(c);
      if (!repo.remove(id)) missing(id);
      changed("deleted", { id });
      return c.body(null, 204);
    });
}
