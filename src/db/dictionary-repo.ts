import type { Database } from "bun:sqlite";
import { AppError, conflict } from "../errors.ts";
import type { Page } from "../http/list.ts";
import { likePattern } from "../http/list.ts";
import { foldCase, normalizeTerm } from "../text/fold.ts";
import { isUniqueViolation, type ListQuery, type ListSpec, selectPage } from "./list-sql.ts";

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

export interface ImportSummary {
  created: number;
  updated: number;
  unchanged: number;
  deleted: number;
}

export interface ImportOptions {
  /** `merge` (default) upserts by key; `replace` also deletes every entry the items do not name. */
  mode?: "merge" | "replace";
  /** Refuse (413, rolled back) when the table would end up larger than this. */
  maxEntries?: number;
}

export interface DictionaryRepo {
  list(query: ListQuery<DictionaryOrderField>): Page<DictionaryEntry>;
  get(id: number): DictionaryEntry | null;
  count(): number;
  /** Throws 409 `conflict` when the key exists in any letter case. */
  create(item: DictionaryItem): DictionaryEntry;
  update(id: number, patch: Partial<DictionaryItem>): DictionaryEntry | null;
  remove(id: number): boolean;
  /** Every entry as `{id, key, value}`, for the text pipeline's matcher. */
  entries(): DictionaryTerm[];
  /**
   * Adds `count` to each entry's usage and stamps lastUsedAt, in one statement. Unknown ids
   * are ignored (an entry deleted mid-dictation). Does not bump version(): nothing to recompile.
   */
  recordUsage(hits: ReadonlyMap<number, number>, at?: Date): void;
  exportAll(): DictionaryItem[];
  /** Upserts by folded key inside a savepoint, so it is atomic alone and nests in a caller's transaction. */
  importAll(items: readonly DictionaryItem[], options?: ImportOptions): ImportSummary;
  /**
   * Increases on every change to keys or values made through this repository (not on usage).
   * The pipeline recompiles its matcher when the number differs from the one it compiled.
   */
  version(): number;
}

const columns = "id, key, value, usage_count, last_used_at, created_at, updated_at";

const toEntry = (row: DictionaryRow): DictionaryEntry => ({
  id: row.id,
  key: row.key,
  value: row.value,
  usageCount: row.usage_count,
  lastUsedAt: row.last_used_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const listSpec: ListSpec<DictionaryRow, DictionaryEntry, DictionaryOrderField> = {
  table: "dictionary",
  columns,
  orderColumns: {
    key: "key_folded",
    value: "value",
    usageCount: "usage_count",
    lastUsedAt: "last_used_at",
    createdAt: "created_at",
    updatedAt: "updated_at",
  },
  search: (term) => ({
    where: "(key_folded LIKE $folded ESCAPE '\\' OR value LIKE $plain ESCAPE '\\')",
    params: { folded: likePattern(foldCase(term)), plain: likePattern(term) },
  }),
  toItem: toEntry,
};

const clean = (item: DictionaryItem): DictionaryItem => ({
  key: normalizeTerm(item.key),
  value: item.value.trim(),
});

export function createDictionaryRepo(db: Database): DictionaryRepo {
  const byId = db.query<DictionaryRow, [number]>(`SELECT ${columns} FROM dictionary WHERE id = ?`);
  const byFolded = db.query<{ id: number; key: string }, [string]>(
    "SELECT id, key FROM dictionary WHERE key_folded = ?",
  );
  const countAll = db.query<{ n: number }, []>("SELECT count(*) AS n FROM dictionary");
  const insert = db.query<DictionaryRow, [string, string, string, string, string]>(
    `INSERT INTO dictionary (key, key_folded, value, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
     RETURNING ${columns}`,
  );
  const change = db.query<DictionaryRow, [string, string, string, string, number]>(
    `UPDATE dictionary SET key = ?, key_folded = ?, value = ?, updated_at = ? WHERE id = ? RETURNING ${columns}`,
  );
  const del = db.query<never, [number]>("DELETE FROM dictionary WHERE id = ?");
  const allTerms = db.query<DictionaryTerm, []>("SELECT id, key, value FROM dictionary ORDER BY id");
  const allItems = db.query<DictionaryItem, []>("SELECT key, value FROM dictionary ORDER BY key_folded");
  const folded = db.query<DictionaryTerm & { key_folded: string }, []>(
    "SELECT id, key, key_folded, value FROM dictionary",
  );
  const usage = db.query<never, { hits: string; at: string }>(
    `UPDATE dictionary SET usage_count = usage_count + hits.value, last_used_at = $at
     FROM json_each($hits) AS hits WHERE dictionary.id = CAST(hits.key AS INTEGER)`,
  );
  const deleteExcept = db.query<never, [string]>(
    "DELETE FROM dictionary WHERE id NOT IN (SELECT value FROM json_each(?))",
  );
  let version = 0;

  const duplicate = (key: string) => {
    const existing = byFolded.get(foldCase(key));
    return conflict(
      `The key "${key}" is already in the dictionary as "${existing?.key}" (id ${existing?.id}).`,
      {
        field: "key",
        existingId: existing?.id,
      },
    );
  };

  const guardUnique = <T>(key: string, write: () => T): T => {
    try {
      return write();
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicate(key);
      throw error;
    }
  };

  const importAll = db.transaction(
    (items: readonly DictionaryItem[], options: ImportOptions): ImportSummary => {
      const summary: ImportSummary = { created: 0, updated: 0, unchanged: 0, deleted: 0 };
      const known = new Map<string, DictionaryTerm>(folded.all().map((row) => [row.key_folded, row]));
      const touched: number[] = [];
      const now = new Date().toISOString();
      for (const raw of items) {
        const item = clean(raw);
        const foldedKey = foldCase(item.key);
        const prev = known.get(foldedKey);
        let row: DictionaryRow | null = null;
        if (!prev) row = insert.get(item.key, foldedKey, item.value, now, now);
        else if (prev.key !== item.key || prev.value !== item.value) {
          row = change.get(item.key, foldedKey, item.value, now, prev.id);
        }
        if (!prev) summary.created++;
        else if (row) summary.updated++;
        else summary.unchanged++;
        const id = row?.id ?? prev?.id;
        if (id !== undefined) {
          touched.push(id);
          known.set(foldedKey, { id, ...item });
        }
      }
      if (options.mode === "replace") summary.deleted = deleteExcept.run(JSON.stringify(touched)).changes;
      const total = countAll.get()?.n ?? 0;
      if (options.maxEntries !== undefined && total > options.maxEntries) {
        throw new AppError(
          413,
          "limit_exceeded",
          `The import would leave ${total} dictionary entries; the limit is ${options.maxEntries}.`,
          { details: { total, limit: options.maxEntries } },
        );
      }
      return summary;
    },
  );

  return {
    list: (query) => selectPage(db, listSpec, query),
    get: (id) => {
      const row = byId.get(id);
      return row ? toEntry(row) : null;
    },
    count: () => countAll.get()?.n ?? 0,
    create(raw) {
      const item = clean(raw);
      const now = new Date().toISOString();
      const row = guardUnique(item.key, () => insert.get(item.key, foldCase(item.key), item.value, now, now));
      if (!row) throw new Error("INSERT … RETURNING gave no row");
      version++;
      return toEntry(row);
    },
    update(id, patch) {
      const current = byId.get(id);
      if (!current) return null;
      const item = clean({ key: patch.key ?? current.key, value: patch.value ?? current.value });
      const now = new Date().toISOString();
      const row = guardUnique(item.key, () => change.get(item.key, foldCase(item.key), item.value, now, id));
      version++;
      return row ? toEntry(row) : null;
    },
    remove(id) {
      const removed = del.run(id).changes > 0;
      if (removed) version++;
      return removed;
    },
    entries: () => allTerms.all(),
    recordUsage(hits, at = new Date()) {
      const counts: Record<string, number> = {};
      for (const [id, count] of hits) if (Number.isSafeInteger(count) && count > 0) counts[id] = count;
      if (Object.keys(counts).length === 0) return;
      usage.run({ hits: JSON.stringify(counts), at: at.toISOString() });
    },
    exportAll: () => allItems.all(),
    importAll(items, options = {}) {
      const summary = importAll(items, options);
      if (summary.created + summary.updated + summary.deleted > 0) version++;
      return summary;
    },
    version: () => version,
  };
}
