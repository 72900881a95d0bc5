import * as v from "valibot";
import type { ApiDocs } from "../http/api-docs.ts";
import { idParamsSchema } from "../http/params.ts";
import { exportQuerySchema, importQuerySchema, importSummarySchema } from "../http/table-io.ts";
import { pageSchema } from "../lists.ts";

interface Text {
  summary: string;
  description?: string;
}

export interface KeyedDocsSpec {
  /** `/api/dictionary` */
  path: string;
  tag: string;
  entry: v.GenericSchema;
  /** The 200 of get and patch: "The entry". */
  entryDescription: string;
  listQuery: v.GenericSchema;
  createBody: v.GenericSchema;
  patchBody: v.GenericSchema;
  importBody: v.GenericSchema;
  /** One row of an export file. */
  exportRow: v.GenericSchema;
  text: Record<"list" | "create" | "get" | "patch" | "remove" | "import" | "export", Text>;
}

/** The seven routes createKeyedRoutes serves, in the order the reference lists them. */
export function documentKeyed(docs: ApiDocs, spec: KeyedDocsSpec): void {
  const { path, tag, entry, text } = spec;
  const one = { description: spec.entryDescription, schema: entry };
  docs.add(
    {
      method: "get",
      path,
      tag,
      ...text.list,
      query: spec.listQuery,
      responses: { 200: { description: "One page", schema: pageSchema(entry) } },
    },
    {
      method: "post",
      path,
      tag,
      ...text.create,
      body: spec.createBody,
      responses: { 201: { description: "Created", schema: entry } },
      errors: ["conflict", "limit_exceeded"],
    },
    { method: "get", path: `${path}/:id`, tag, ...text.get, params: idParamsSchema, responses: { 200: one } },
    {
      method: "patch",
      path: `${path}/:id`,
      tag,
      ...text.patch,
      params: idParamsSchema,
      body: spec.patchBody,
      responses: { 200: one },
      errors: ["conflict"],
    },
    {
      method: "delete",
      path: `${path}/:id`,
      tag,
      ...text.remove,
      params: idParamsSchema,
      responses: { 204: { description: "Deleted" } },
    },
    {
      method: "post",
      path: `${path}/import`,
      tag,
      ...text.import,
      query: importQuerySchema,
      body: spec.importBody,
      bodyTypes: ["text/csv"],
      responses: { 200: { description: "What changed", schema: importSummarySchema } },
      errors: ["invalid_import", "invalid_csv", "limit_exceeded"],
    },
    {
      method: "get",
      path: `${path}/export`,
      tag,
      ...text.export,
      query: exportQuerySchema,
      responses: { 200: { description: "The file", schema: v.array(spec.exportRow) } },
    },
  );
}
