import * as v from "valibot";
import {
  dictionaryEntrySchema,
  dictionaryItemSchema,
  dictionaryLimits,
} from "../lexicon/dictionary-schemas.ts";
import type { KeyedDocsSpec } from "./keyed-docs.ts";

const { maxKeyLength, maxValueLength, maxEntries } = dictionaryLimits;
const limits =
  `Keys are trimmed, inner whitespace squashed, at most ${maxKeyLength} characters, unique ignoring letter case ` +
  `(Unicode-aware); values are trimmed, at most ${maxValueLength} characters; at most ${maxEntries} entries.`;

/** How dictionary routes read in the API reference. */
export const dictionaryReference: KeyedDocsSpec = {
  tag: "Dictionary",
  entry: dictionaryEntrySchema,
  entryDescription: "The entry",
  importBody: v.array(dictionaryItemSchema),
  exportRow: dictionaryItemSchema,
  text: {
    list: {
      summary: "List dictionary entries",
      description: "search matches keys and values (a literal substring: % and _ are not wildcards).",
    },
    create: {
      summary: "Add an entry: say the key, get the value",
      description: `${limits} 409 conflict when the key exists; 413 limit_exceeded when the dictionary is full.`,
    },
    get: { summary: "One entry" },
    patch: {
      summary: "Change an entry's key, value or both",
      description: `Fields left out stay as they are. ${limits}`,
    },
    remove: { summary: "Delete an entry" },
    import: {
      summary: "Import entries from JSON or CSV",
      description:
        "Body: a JSON array of {key, value} (application/json) or CSV with a `key,value` header row (text/csv; " +
        "RFC 4180 quoting, UTF-8, optional BOM). All or nothing: if any row is invalid (blank or over-long " +
        "field, a key repeated in the file, a row with extra fields) nothing is imported and the 400 " +
        "invalid_import lists up to 100 problems by CSV line or JSON index; malformed CSV is 400 invalid_csv, " +
        "malformed JSON 400 invalid_json, JSON that is not an array 400 invalid_request, JSON nested over 64 " +
        "levels 400 json_too_deep; a body declared as any other type (text/plain, a form) 415 " +
        "unsupported_media_type. " +
        "Blank CSV lines are skipped. mode=merge (default) adds new keys and updates the values of existing " +
        "ones, keeping their usage counts; mode=replace also deletes every entry the file does not name. " +
        `Files over SVC_MAX_IMPORT_SIZE (32 MiB by default) or ${maxEntries} rows are 413 payload_too_large; an import that ` +
        "would leave the dictionary over its limit is 413 limit_exceeded.",
    },
    export: {
      summary: "Download the dictionary as JSON or CSV",
      description:
        "An attachment named svc-dictionary-<date>.json|csv that POST /api/dictionary/import accepts as is. " +
        "CSV has a key,value header, CRLF line ends and a UTF-8 BOM (so spreadsheets read accents).",
    },
  },
};
