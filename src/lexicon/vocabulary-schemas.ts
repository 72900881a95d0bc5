import * as v from "valibot";
import { vocabularyOrderFields } from "../db/vocabulary-repo.ts";
import { foldCase } from "../fold.ts";
import { listQuerySchema } from "../lists.ts";
import { keySchema } from "./keyed-schemas.ts";
import type { TableSpec } from "./table-spec.ts";

/** Limits on the vocabulary; the route docs quote them. */
export const vocabularyLimits = {
  /** Characters in a term (after trimming and squashing inner whitespace). */
  maxTermLength: 200,
  /** Characters in the optional notes. */
  maxNotesLength: 1000,
  /** Terms in the whole vocabulary; creating or importing past it is 413 `limit_exceeded`. */
  maxEntries: 10_000,
} as const;

const { maxTermLength, maxNotesLength } = vocabularyLimits;

export const vocabularyTermSchema = keySchema("term", maxTermLength);

/** Blank or null clears the notes. */
export const vocabularyNotesSchema = v.nullable(
  v.pipe(
    v.string("notes must be a string or null"),
    v.trim(),
    v.maxLength(maxNotesLength, `notes must be at most ${maxNotesLength} characters`),
  ),
);

export const vocabularyCreateSchema = v.strictObject({
  term: vocabularyTermSchema,
  notes: v.optional(vocabularyNotesSchema),
});

export const vocabularyPatchSchema = v.pipe(
  v.strictObject({ term: v.optional(vocabularyTermSchema), notes: v.optional(vocabularyNotesSchema) }),
  v.check((patch) => patch.term !== undefined || patch.notes !== undefined, "send term, notes or both"),
);

/** One imported row: `{term, notes?}` or, in JSON, a bare string. Extra fields are ignored. */
export const vocabularyItemSchema = v.pipe(
  v.unknown(),
  v.transform((row) => (typeof row === "string" ? { term: row } : row)),
  v.object({ term: vocabularyTermSchema, notes: v.optional(vocabularyNotesSchema) }),
);

export const vocabularyTable: TableSpec<typeof vocabularyItemSchema> = {
  noun: "vocabulary",
  columns: ["term", "notes"],
  required: ["term"],
  row: vocabularyItemSchema,
  identity: (item) => foldCase(item.term),
  maxRows: vocabularyLimits.maxEntries,
};

export const vocabularyListQuerySchema = listQuerySchema(vocabularyOrderFields, "createdAt:desc");

export const vocabularyEntrySchema = v.object({
  id: v.number(),
  term: v.string(),
  notes: v.nullable(v.string()),
  createdAt: v.string(),
  updatedAt: v.string(),
});
