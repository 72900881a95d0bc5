import type * as v from "valibot";

interface Text {
  summary: string;
  description?: string;
}

/**
 * How a keyed resource is described in the API reference; createKeyedRoutes declares the routes,
 * and documents its path and the schemas it validates with from its own spec.
 */
export interface KeyedDocsSpec {
  tag: string;
  entry: v.GenericSchema;
  /** The 200 of get and patch: "The entry". */
  entryDescription: string;
  importBody: v.GenericSchema;
  /** One row of an export file. */
  exportRow: v.GenericSchema;
  text: Record<"list" | "create" | "get" | "patch" | "remove" | "import" | "export", Text>;
}
