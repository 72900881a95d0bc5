import type { Database } from "bun:sqlite";
import { createKeyedRepo, type KeyedRepo } from "./keyed-repo.ts";

export type { ImportOptions, ImportSummary } from "./keyed-repo.ts";

export interface DictionaryRow {
  id: number;
  key: string;
  value: string;
  usage_count: number;
  last_used_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface DictionaryEntry {
  id: number;
  key: string;
  value: string;
  usageCount: number;
  lastUsedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface DictionaryItem {
  key: string;
  value: string;
}

/** What the pipeline compiles its matcher from. */
export interface DictionaryTerm extends DictionaryItem {
  id: number;
}

export const dictionaryOrderFields = [
  "key",
  "value",
  "usageCount",
  "lastUsedAt",
  "createdAt",
  "updatedAt",
] as const;
export type DictionaryOrderField = (typeof dictionaryOrderFields)[number];

export interface DictionaryRepo
  extends KeyedRepo<DictionaryEntry, DictionaryItem, DictionaryOrderField, DictionaryItem> {
  /** Every entry as `{id, key, value}`, for the text pipeline's matcher. */
  entries(): DictionaryTerm[];
  /**
   * Adds `count` to each entry's usage and stamps lastUsedAt, in one statement. Unknown ids
   * are ignored (an entry deleted mid-dictation). Does not bump version(): nothing to recompile.
   */
  recordUsage(hits: ReadonlyMap<number, number>, at?: Date): void;
  /**
   * Increases on every change to keys or values made through this repository (not on usage).
   * The pipeline recompiles its matcher when the number differs from the one it compiled.
   */
  version(): number;
}

const toEntry = (row: DictionaryRow): DictionaryEntry => ({
  id: row.id,
  key: row.key,
  value: row.value,
  usageCount: row.usage_count,
  lastUsedAt: row.last_used_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export function createDictionaryRepo(db: Database): DictionaryRepo {
  const keyed = createKeyedRepo<
    DictionaryRow,
    DictionaryEntry,
    DictionaryItem,
    DictionaryOrderField,
    DictionaryItem,
    string
  >(db, {
    table: "dictionary",
    columns: "id, key, value, usage_count, last_used_at, created_at, updated_at",
    keyColumn: "key",
    valueColumn: "value",
    orderColumns: {
      key: "key_folded",
      value: "value",
      usageCount: "usage_count",
      lastUsedAt: "last_used_at",
      createdAt: "created_at",
      updatedAt: "updated_at",
    },
    entriesNoun: "dictionary entries",
    toEntry,
    keyOf: (item) => item.key,
    valueOf: (item, stored) => (item.value ?? stored ?? "").trim(),
  });
  const allTerms = db.query<DictionaryTerm, []>("SELECT id, key, value FROM dictionary ORDER BY id");
  const usage = db.query<never, { hits: string; at: string }>(
    `UPDATE dictionary SET usage_count = usage_count + hits.value, last_used_at = $at
     FROM json_each($hits) AS hits WHERE dictionary.id = CAST(hits.key AS INTEGER)`,
  );

  return {
    ...keyed,
    entries: () => allTerms.all(),
    recordUsage(hits, at = new Date()) {
      const counts: Record<string, number> = {};
      for (const [id, count] of hits) if (Number.isSafeInteger(count) && count > 0) counts[id] = count;
      if (Object.keys(counts).length === 0) return;
      usage.run({ hits: JSON.stringify(counts), at: at.toISOString() });
    },
  };
}
