import type { Database } from "bun:sqlite";
import type { Page } from "../lists.ts";

/** A validated list request (see listQuerySchema); `field` is one of the repository's order fields. */
export interface ListQuery<F extends string = string> {
  limit: number;
  offset: number;
  search?: string | undefined;
  orderBy: { field: F; direction: "ASC" | "DESC" };
}

export interface ListSpec<R, T, F extends string> {
  table: string;
  columns: string;
  /** Maps each public order field to the SQL column it sorts by; only these strings reach the SQL. */
  orderColumns: Record<F, string>;
  /** WHERE clause and its named parameters for a search term. */
  search(term: string): { where: string; params: Record<string, string> };
  toItem(row: R): T;
}

/**
 * One page plus the total. The SQL text is assembled only from the spec's fixed strings, so
 * `db.query` (which caches by text) keeps one prepared statement per order/search shape.
 */
export function selectPage<R, T, F extends string>(
  db: Database,
  spec: ListSpec<R, T, F>,
  query: ListQuery<F>,
): Page<T> {
  const { where, params } = query.search ? spec.search(query.search) : { where: "", params: {} };
  const filter = where ? `WHERE ${where}` : "";
  const column = spec.orderColumns[query.orderBy.field];
  const direction = query.orderBy.direction;
  const rows = db
    .query<R, Record<string, string | number>>(
      `SELECT ${spec.columns} FROM ${spec.table} ${filter}
       ORDER BY ${column} ${direction}, id ${direction} LIMIT $limit OFFSET $offset`,
    )
    .all({ ...params, limit: query.limit, offset: query.offset });
  const total =
    db
      .query<{ n: number }, Record<string, string>>(`SELECT count(*) AS n FROM ${spec.table} ${filter}`)
      .get(params)?.n ?? 0;
  return { items: rows.map(spec.toItem), total, limit: query.limit, offset: query.offset };
}

/** True when `error` is SQLite refusing a duplicate in a UNIQUE column. */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "SQLITE_CONSTRAINT_UNIQUE";
}
