import type { Database } from "bun:sqlite";
import { AppError, conflict } from "../errors.ts";
import { foldCase, normalizeTerm } from "../fold.ts";
import type { Page } from "../lists.ts";
import { likePattern } from "../lists.ts";
import { isUniqueViolation, type ListQuery, type ListSpec, selectPage } from "./list-sql.ts";

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

/** A table of unique-ignoring-case keys (`<key>`, `<key>_folded`) with one value column each. */
export interface KeyedRepo<E, I, F extends string, X> {
  list(query: ListQuery<F>): Page<E>;
  get(id: number): E | null;
  count(): number;
  /** Throws 409 `conflict` when the key exists in any letter case. */
  create(item: I): E;
  update(id: number, patch: Partial<I>): E | null;
  remove(id: number): boolean;
  exportAll(): X[];
  /** Upserts by folded key inside a savepoint, so it is atomic alone and nests in a caller's transaction. */
  importAll(items: readonly I[], options?: ImportOptions): ImportSummary;
  /** Increases on every change to keys or values made through this repository. */
  version(): number;
}

export interface KeyedSpec<R extends { id: number }, E, I, F extends string, V extends string | null> {
  table: string;
  /** All columns of a row, as `R` names them. */
  columns: string;
  keyColumn: string;
  valueColumn: string;
  orderColumns: Record<F, string>;
  /** What the table holds, plural, for the 413 import message ("dictionary entries"). */
  entriesNoun: string;
  toEntry(row: R): E;
  /** The key as sent; a patch may leave it out. */
  keyOf(item: Partial<I>): string | undefined;
  /** The cleaned value to store: the item's, or `stored` when the item leaves it out. */
  valueOf(item: Partial<I>, stored: V | undefined): V;
}

interface Pair<V> {
  id: number;
  key: string;
  value: V;
}

export function createKeyedRepo<R extends { id: number }, E, I, F extends string, X, V extends string | null>(
  db: Database,
  spec: KeyedSpec<R, E, I, F, V>,
): KeyedRepo<E, I, F, X> {
  const { table, columns, keyColumn: k, valueColumn: val } = spec;
  const listSpec: ListSpec<R, E, F> = {
    table,
    columns,
    orderColumns: spec.orderColumns,
    search: (term) => ({
      where: `(${k}_folded LIKE $folded ESCAPE '\\' OR ${val} LIKE $plain ESCAPE '\\')`,
      params: { folded: likePattern(foldCase(term)), plain: likePattern(term) },
    }),
    toItem: spec.toEntry,
  };
  const byId = db.query<R, [number]>(`SELECT ${columns} FROM ${table} WHERE id = ?`);
  const pairById = db.query<Pair<V>, [number]>(
    `SELECT id, ${k} AS key, ${val} AS value FROM ${table} WHERE id = ?`,
  );
  const byFolded = db.query<{ id: number; key: string }, [string]>(
    `SELECT id, ${k} AS key FROM ${table} WHERE ${k}_folded = ?`,
  );
  const countAll = db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`);
  const insert = db.query<R, [string, string, V, string, string]>(
    `INSERT INTO ${table} (${k}, ${k}_folded, ${val}, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
     RETURNING ${columns}`,
  );
  const change = db.query<R, [string, string, V, string, number]>(
    `UPDATE ${table} SET ${k} = ?, ${k}_folded = ?, ${val} = ?, updated_at = ? WHERE id = ? RETURNING ${columns}`,
  );
  const del = db.query<never, [number]>(`DELETE FROM ${table} WHERE id = ?`);
  const allItems = db.query<X, []>(`SELECT ${k}, ${val} FROM ${table} ORDER BY ${k}_folded`);
  const folded = db.query<Pair<V> & { folded: string }, []>(
    `SELECT id, ${k} AS key, ${k}_folded AS folded, ${val} AS value FROM ${table}`,
  );
  const deleteExcept = db.query<never, [string]>(
    `DELETE FROM ${table} WHERE id NOT IN (SELECT value FROM json_each(?))`,
  );
  let version = 0;

  const guardUnique = <T>(key: string, write: () => T): T => {
    try {
      return write();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const existing = byFolded.get(foldCase(key));
      throw conflict(
        `The ${k} "${key}" is already in the ${table} as "${existing?.key}" (id ${existing?.id}).`,
        { field: k, existingId: existing?.id },
      );
    }
  };

  const importAll = db.transaction((items: readonly I[], options: ImportOptions): ImportSummary => {
    const summary: ImportSummary = { created: 0, updated: 0, unchanged: 0, deleted: 0 };
    const known = new Map<string, Pair<V>>(folded.all().map((row) => [row.folded, row]));
    const touched: number[] = [];
    const now = new Date().toISOString();
    for (const item of items) {
      const key = normalizeTerm(spec.keyOf(item) ?? "");
      const foldedKey = foldCase(key);
      const prev = known.get(foldedKey);
      const value = spec.valueOf(item, prev?.value);
      let row: R | null = null;
      if (!prev) row = insert.get(key, foldedKey, value, now, now);
      else if (prev.key !== key || prev.value !== value)
        row = change.get(key, foldedKey, value, now, prev.id);
      if (!prev) summary.created++;
      else if (row) summary.updated++;
      else summary.unchanged++;
      const id = row?.id ?? prev?.id;
      if (id !== undefined) {
        touched.push(id);
        known.set(foldedKey, { id, key, value });
      }
    }
    if (options.mode === "replace") summary.deleted = deleteExcept.run(JSON.stringify(touched)).changes;
    const total = countAll.get()?.n ?? 0;
    if (options.maxEntries !== undefined && total > options.maxEntries) {
      throw new AppError(
        "limit_exceeded",
        `The import would leave ${total} ${spec.entriesNoun}; the limit is ${options.maxEntries}.`,
        { details: { total, limit: options.maxEntries } },
      );
    }
    return summary;
  });

  return {
    list: (query) => selectPage(db, listSpec, query),
    get: (id) => {
      const row = byId.get(id);
      return row ? spec.toEntry(row) : null;
    },
    count: () => countAll.get()?.n ?? 0,
    create(item) {
      const key = normalizeTerm(spec.keyOf(item) ?? "");
      const value = spec.valueOf(item, undefined);
      const now = new Date().toISOString();
      const row = guardUnique(key, () => insert.get(key, foldCase(key), value, now, now));
      if (!row) throw new Error("INSERT … RETURNING gave no row");
      version++;
      return spec.toEntry(row);
    },
    update(id, patch) {
      const current = pairById.get(id);
      if (!current) return null;
      const key = normalizeTerm(spec.keyOf(patch) ?? current.key);
      const value = spec.valueOf(patch, current.value);
      const now = new Date().toISOString();
      const row = guardUnique(key, () => change.get(key, foldCase(key), value, now, id));
      version++;
      return row ? spec.toEntry(row) : null;
    },
    remove(id) {
      const removed = del.run(id).changes > 0;
      if (removed) version++;
      return removed;
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
