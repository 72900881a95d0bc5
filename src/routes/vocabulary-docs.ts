import * as v from "valibot";
import type { ApiDocs } from "../http/api-docs.ts";
import { idParamsSchema } from "../http/params.ts";
import { exportQuerySchema, importQuerySchema, importSummarySchema } from "../http/table-io.ts";
import {
  vocabularyCreateSchema,
  vocabularyEntrySchema,
  vocabularyLimits,
  vocabularyListQuerySchema,
  vocabularyPatchSchema,
} from "./vocabulary-schemas.ts";

const { maxTermLength, maxNotesLength, maxEntries, maxImportBytes } = vocabularyLimits;
const limits =
  `Terms are trimmed, inner whitespace squashed, at most ${maxTermLength} characters, unique ignoring letter ` +
  `case (Unicode-aware); notes at most ${maxNotesLength} characters; at most ${maxEntries} terms.`;

const page = v.object({
  items: v.array(vocabularyEntrySchema),
  total: v.number(),
  limit: v.number(),
  offset: v.number(),
});
const item = v.object({ term: v.string(), notes: v.optional(v.nullable(v.string())) });

export function documentVocabulary(docs: ApiDocs): void {
  const tag = "Vocabulary";
  const entry = { description: "The term", schema: vocabularyEntrySchema };
  docs.add(
    {
      method: "get",
      path: "/api/vocabulary",
      tag,
      summary: "List vocabulary terms (names and jargon that bias recognition)",
      description: "search matches terms and notes (a literal substring: % and _ are not wildcards).",
      query: vocabularyListQuerySchema,
      responses: { 200: { description: "One page", schema: page } },
    },
    {
      method: "post",
      path: "/api/vocabulary",
      tag,
      summary: "Add a term",
      description: `${limits} 409 conflict when the term exists; 413 limit_exceeded when the vocabulary is full.`,
      body: vocabularyCreateSchema,
      responses: { 201: { description: "Created", schema: vocabularyEntrySchema } },
    },
    {
      method: "get",
      path: "/api/vocabulary/:id",
      tag,
      summary: "One term",
      params: idParamsSchema,
      responses: { 200: entry },
    },
    {
      method: "patch",
      path: "/api/vocabulary/:id",
      tag,
      summary: "Change a term or its notes",
      description: `Fields left out stay as they are; notes null or "" clears them. ${limits}`,
      params: idParamsSchema,
      body: vocabularyPatchSchema,
      responses: { 200: entry },
    },
    {
      method: "delete",
      path: "/api/vocabulary/:id",
      tag,
      summary: "Delete a term",
      params: idParamsSchema,
      responses: { 204: { description: "Deleted" } },
    },
    {
      method: "post",
      path: "/api/vocabulary/import",
      tag,
      summary: "Import terms from JSON or CSV",
      description:
        "Body: a JSON array of {term, notes?} or of plain strings (application/json), or CSV with a header " +
        "naming `term` and optionally `notes` (text/csv; RFC 4180). All or nothing, exactly like the " +
        "dictionary import: any invalid row fails the request with 400 invalid_import listing the rows. " +
        "mode=merge (default) adds new terms and updates notes (a missing notes column keeps them); " +
        `mode=replace also deletes terms the file does not name. Over ${maxImportBytes} bytes or ${maxEntries} ` +
        "rows: 413 payload_too_large; leaving the vocabulary over its limit: 413 limit_exceeded.",
      query: importQuerySchema,
      body: v.array(v.union([v.string(), item])),
      bodyTypes: ["text/csv"],
      responses: { 200: { description: "What changed", schema: importSummarySchema } },
    },
    {
      method: "get",
      path: "/api/vocabulary/export",
      tag,
      summary: "Download the vocabulary as JSON or CSV",
      description: "An attachment named svc-vocabulary-<date>.json|csv that the import accepts as is.",
      query: exportQuerySchema,
      responses: { 200: { description: "The file", schema: v.array(item) } },
    },
  );
}
