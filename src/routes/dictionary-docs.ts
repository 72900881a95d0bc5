import * as v from "valibot";
import type { ApiDocs } from "../http/api-docs.ts";
import { idParamsSchema } from "../http/params.ts";
import { exportQuerySchema, importQuerySchema, importSummarySchema } from "../http/table-io.ts";
import {
  dictionaryCreateSchema,
  dictionaryEntrySchema,
  dictionaryItemSchema,
  dictionaryLimits,
  dictionaryListQuerySchema,
  dictionaryPatchSchema,
} from "./dictionary-schemas.ts";

const { maxKeyLength, maxValueLength, maxEntries, maxImportBytes } = dictionaryLimits;
const limits =
  `Keys are trimmed, inner whitespace squashed, at most ${maxKeyLength} characters, unique ignoring letter case ` +
  `(Unicode-aware); values are trimmed, at most ${maxValueLength} characters; at most ${maxEntries} entries.`;

const page = v.object({
  items: v.array(dictionaryEntrySchema),
  total: v.number(),
  limit: v.number(),
  offset: v.number(),
});

export function documentDictionary(docs: ApiDocs): void {
  const tag = "Dictionary";
  const entry = { description: "The entry", schema: dictionaryEntrySchema };
  docs.add(
    {
      method: "get",
      path: "/api/dictionary",
      tag,
      summary: "List dictionary entries",
      description: "search matches keys and values (a literal substring: % and _ are not wildcards).",
      query: dictionaryListQuerySchema,
      responses: { 200: { description: "One page", schema: page } },
    },
    {
      method: "post",
      path: "/api/dictionary",
      tag,
      summary: "Add an entry: say the key, get the value",
      description: `${limits} 409 conflict when the key exists; 413 limit_exceeded when the dictionary is full.`,
      body: dictionaryCreateSchema,
      responses: { 201: { description: "Created", schema: dictionaryEntrySchema } },
    },
    {
      method: "get",
      path: "/api/dictionary/:id",
      tag,
      summary: "One entry",
      params: idParamsSchema,
      responses: { 200: entry },
    },
    {
      method: "patch",
      path: "/api/dictionary/:id",
      tag,
      summary: "Change an entry's key, value or both",
      description: `Fields left out stay as they are. ${limits}`,
      params: idParamsSchema,
      body: dictionaryPatchSchema,
      responses: { 200: entry },
    },
    {
      method: "delete",
      path: "/api/dictionary/:id",
      tag,
      summary: "Delete an entry",
      params: idParamsSchema,
      responses: { 204: { description: "Deleted" } },
    },
    {
      method: "post",
      path: "/api/dictionary/import",
      tag,
      summary: "Import entries from JSON or CSV",
      description:
        "Body: a JSON array of {key, value} (application/json) or CSV with a `key,value` header row (text/csv; " +
        "RFC 4180 quoting, UTF-8, optional BOM). All or nothing: if any row is invalid (blank or over-long " +
        "field, a key repeated in the file, a row with extra fields) nothing is imported and the 400 " +
        "invalid_import lists up to 100 problems by CSV line or JSON index; malformed CSV is 400 invalid_csv. " +
        "Blank CSV lines are skipped. mode=merge (default) adds new keys and updates the values of existing " +
        "ones, keeping their usage counts; mode=replace also deletes every entry the file does not name. " +
        `Files over ${maxImportBytes} bytes or ${maxEntries} rows are 413 payload_too_large; an import that ` +
        "would leave the dictionary over its limit is 413 limit_exceeded.",
      query: importQuerySchema,
      body: v.array(dictionaryItemSchema),
      bodyTypes: ["text/csv"],
      responses: { 200: { description: "What changed", schema: importSummarySchema } },
    },
    {
      method: "get",
      path: "/api/dictionary/export",
      tag,
      summary: "Download the dictionary as JSON or CSV",
      description:
        "An attachment named svc-dictionary-<date>.json|csv that POST /api/dictionary/import accepts as is. " +
        "CSV has a key,value header, CRLF line ends and a UTF-8 BOM (so spreadsheets read accents).",
      query: exportQuerySchema,
      responses: {
        200: { description: "The file", schema: v.array(dictionaryItemSchema) },
      },
    },
  );
}
