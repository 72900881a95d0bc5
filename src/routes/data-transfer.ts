import * as v from "valibot";
import type { DataTransfer } from "../data/transfer.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { documentedRoutes } from "../http/documented-routes.ts";
import { readJson } from "../http/validate.ts";

const importQuerySchema = v.object({
  mode: v.optional(
    v.pipe(
      v.picklist(["merge", "replace"], 'mode must be "merge" or "replace"'),
      v.description(
        "merge (default) upserts and keeps what the document does not name; replace makes each included section equal to the document (built-in formats are never deleted). Entries match by dictionary key, vocabulary term (any case) and format builtinKey, or label and appPattern (any case); a matched entry is updated in place and keeps its id.",
      ),
    ),
    "merge",
  ),
});

const importReportSchema = v.object({
  mode: v.picklist(["merge", "replace"]),
  settings: v.optional(
    v.object({
      imported: v.array(v.string()),
      reset: v.array(v.string()),
      skipped: v.array(v.string()),
      cleared: v.array(v.string()),
    }),
  ),
});

/** `GET /api/export` and `POST /api/import`: a user's settings, dictionary, vocabulary and formats. */
export function createDataTransferRoutes(deps: { transfer: DataTransfer; docs: ApiDocs }) {
  const { transfer } = deps;

  return documentedRoutes(deps.docs, "/api", "Data")
    .get(
      "/export",
      {
        summary: "Export settings, dictionary, vocabulary and formats",
        description:
          'One JSON document {"format":"svc-export","version":1,...}. Secret settings (API keys) are never included; history is not exported.',
        responses: { 200: { description: "The export document", schema: transfer.schema } },
      },
      (c) => {
        const stamp = new Date().toISOString().slice(0, 10);
        c.header("Content-Disposition", `attachment; filename="svc-export-${stamp}.json"`);
        return c.json(transfer.exportDocument());
      },
    )
    .post(
      "/import",
      {
        summary: "Restore an export document",
        errors: [
          "invalid_import",
          "invalid_setting",
          "invalid_setting_key",
          "too_many_settings",
          "limit_exceeded",
        ],
        description:
          "The whole document is validated first and restored in one transaction: all of it or nothing. A document of the wrong shape, or a bad dictionary, vocabulary or format item, is 400 invalid_import listing the path of each problem. Settings are then checked as PUT /api/settings/:key checks them, naming the key: 400 invalid_setting (bad value), 400 invalid_setting_key, 413 payload_too_large (value too large), 413 too_many_settings. A document over SVC_MAX_IMPORT_SIZE (32 MiB by default) is 413 payload_too_large. A body not sent as Content-Type: application/json is 415 unsupported_media_type. Malformed JSON is 400 invalid_json; JSON nested over 64 levels, 400 json_too_deep; an unknown mode, 400 invalid_query. Sections the document leaves out are not touched; secret settings in it are skipped, and a stored API key whose base URL the import moves to another origin is removed (listed in settings.cleared). Publishes the sections' change events and data.imported.",
        query: importQuerySchema,
        body: transfer.schema,
        // The transfer validates the document as a whole and reports each problem's path.
        readsOwnBody: true,
        bodyKind: "import",
        responses: {
          200: {
            description: "What changed per section: {created, updated, unchanged, deleted}",
            schema: importReportSchema,
          },
        },
      },
      async (c) => {
        const { mode } = c.req.valid("query");
        const body = await readJson(c, v.unknown());
        return c.json(transfer.importDocument(body, mode));
      },
    );
}
