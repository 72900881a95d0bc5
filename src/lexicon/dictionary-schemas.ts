import * as v from "valibot";
import { dictionaryOrderFields } from "../db/dictionary-repo.ts";
import { foldCase } from "../fold.ts";
import { listQuerySchema } from "../lists.ts";
import { keySchema } from "./keyed-schemas.ts";
import type { TableSpec } from "./table-spec.ts";

/** Limits on the dictionary; the route docs quote them. */
export const dictionaryLimits = {
  /** Characters in a key (after trimming and squashing inner whitespace). */
  maxKeyLength: 200,
  /** Characters in a value (after trimming). */
  maxValueLength: 2000,
  /** Entries in the whole dictionary; creating or importing past it is 413 `limit_exceeded`. */
  maxEntries: 50_000,
} as const;

const { maxKeyLength, maxValueLength } = dictionaryLimits;

export const dictionaryKeySchema = keySchema("key", maxKeyLength);

export const dictionaryValueSchema = v.pipe(
  v.string("value must be a string"),
  v.trim(),
  v.minLength(1, "value must not be blank"),
  v.maxLength(maxValueLength, `value must be at most ${maxValueLength} characters`),
);

export const dictionaryCreateSchema = v.strictObject({
  key: dictionaryKeySchema,
  value: dictionaryValueSchema,
});

export const dictionaryPatchSchema = v.pipe(
  v.strictObject({ key: v.optional(dictionaryKeySchema), value: v.optional(dictionaryValueSchema) }),
  v.check((patch) => patch.key !== undefined || patch.value !== undefined, "send key, value or both"),
);

/** One imported row; extra fields (usageCount in a full export, other CSV columns) are ignored. */
export const dictionaryItemSchema = v.object({ key: dictionaryKeySchema, value: dictionaryValueSchema });

export const dictionaryTable: TableSpec<typeof dictionaryItemSchema> = {
  noun: "dictionary",
  columns: ["key", "value"],
  required: ["key", "value"],
  row: dictionaryItemSchema,
  identity: (item) => foldCase(item.key),
  maxRows: dictionaryLimits.maxEntries,
};

export const dictionaryListQuerySchema = listQuerySchema(dictionaryOrderFields, "createdAt:desc");

export const dictionaryEntrySchema = v.object({
  id: v.number(),
  key: v.string(),
  value: v.string(),
  usageCount: v.number(),
  lastUsedAt: v.nullable(v.string()),
  createdAt: v.string(),
  updatedAt: v.string(),
});
