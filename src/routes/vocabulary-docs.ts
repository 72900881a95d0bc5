import * as v from "valibot";
import { vocabularyEntrySchema, vocabularyLimits } from "../lexicon/vocabulary-schemas.ts";
import type { KeyedDocsSpec } from "./keyed-docs.ts";

const { maxTermLength, maxNotesLength, maxEntries } = vocabularyLimits;
const limits =
  `Terms are trimmed, inner whitespace squashed, at most ${maxTermLength} characters, unique ignoring letter ` +
  `case (Unicode-aware); notes at most ${maxNotesLength} characters; at most ${maxEntries} terms.`;

const item = v.object({ term: v.string(), notes: v.optional(v.nullable(v.string())) });

/** How vocabulary routes read in the API reference. */
export const vocabularyReference: KeyedDocsSpec = {
  tag: "Vocabulary",
  entry: vocabularyEntrySchema,
  entryDescription: "The term",
  importBody: v.array(v.union([v.string(), item])),
  exportRow: item,
  text: {
    list: {
      summary: "List vocabulary terms (names and jargon that bias recognition)",
      description: "search matches terms and notes (a literal substring: % and _ are not wildcards).",
    },
    create: {
      summary: "Add a term",
      description: `${limits} 409 conflict when the term exists; 413 limit_exceeded when the vocabulary is full.`,
    },
    get: { summary: "One term" },
    patch: {
      summary: "Change a term or its notes",
      description: `Fields left out stay as they are; notes null or "" clears them. ${limits}`,
    },
    remove: { summary: "Delete a term" },
    import: {
      summary: "Import terms from JSON or CSV",
      description:
        "Body: a JSON array of {term, notes?} or of plain strings (application/json), or CSV with a header " +
        "naming `term` and optionally `notes` (text/csv; RFC 4180). All or nothing, exactly like the " +
        "dictionary import: any invalid row fails the request with 400 invalid_import listing the rows; " +
        "malformed CSV or JSON, a JSON body that is not an array, or JSON nested over 64 levels is 400 " +
        "invalid_csv, invalid_json, invalid_request or json_too_deep; a body declared as any other type " +
        "(text/plain, a form) is 415 unsupported_media_type. " +
        "mode=merge (default) adds new terms and updates notes (a missing notes column keeps them); " +
        `mode=replace also deletes terms the file does not name. Over SVC_MAX_IMPORT_SIZE (32 MiB by default) or ${maxEntries} ` +
        "rows: 413 payload_too_large; leaving the vocabulary over its limit: 413 limit_exceeded.",
    },
    export: {
      summary: "Download the vocabulary as JSON or CSV",
      description: "An attachment named svc-vocabulary-<date>.json|csv that the import accepts as is.",
    },
  },
};
