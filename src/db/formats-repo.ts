import type { Database } from "bun:sqlite";
import * as v from "valibot";
import { AppError } from "../errors.ts";
import type { FormatOrderField } from "../formats/schemas.ts";
import { formatStyleSchema } from "../formats/style.ts";
import type { BuiltinFormat, Format, FormatInput, FormatItem } from "../formats/types.ts";
import type { Page } from "../lists.ts";
import { likePattern } from "../lists.ts";
import type { ImportOptions, ImportSummary } from "./dictionary-repo.ts";
import { type ListQuery, type ListSpec, selectPage } from "./list-sql.ts";

export interface FormatRow {
  id: number;
  builtin_key: string | null;
  label: string;
  app_pattern: string;
  instructions: string;
  enabled: number;
  priority: number;
  style: string;
  created_at: string;
  updated_at: string;
}

export interface FormatsRepo {
  list(query: ListQuery<FormatOrderField>): Page<Format>;
  /** Every format, enabled or not; the matcher filters and orders them. */
  all(): Format[];
  get(id: number): Format | null;
  count(): number;
  create(input: FormatInput): Format;
  update(id: number, input: FormatInput): Format | null;
  /** Deletes a user format; built-ins are never deleted (returns false). */
  remove(id: number): boolean;
  /** Inserts the built-ins that are missing, never touching ones already there. Returns how many. */
  seedBuiltins(builtins: readonly BuiltinFormat[]): number;
  /** Restores every built-in to its shipped definition and drops retired ones; user formats stay. */
  resetBuiltins(builtins: readonly BuiltinFormat[]): number;
  exportAll(): FormatItem[];
  /**
   * Matches items to formats by builtinKey, or for user formats by label and pattern (any case).
   * A match whose content differs is updated in place (same id); unmatched user formats are added;
   * unknown built-in keys are skipped. `merge` keeps the formats the items do not name; `replace`
   * deletes those user formats (built-ins are never deleted). Runs in a savepoint.
   */
  importAll(items: readonly FormatItem[], options?: ImportOptions): ImportSummary;
  /** Increases on every change made through this repository; the matcher recompiles on a new number. */
  version(): number;
}

const columns =
  "id, builtin_key, label, app_pattern, instructions, enabled, priority, style, created_at, updated_at";

// Non-strict: a style stored by an older release gets new options' defaults; retired options drop.
const storedStyleSchema = v.object(formatStyleSchema.entries);

const toFormat = (row: FormatRow): Format => ({
  id: row.id,
  label: row.label,
  appPattern: row.app_pattern,
  instructions: row.instructions,
  enabled: row.enabled === 1,
  priority: row.priority,
  style: v.parse(storedStyleSchema, JSON.parse(row.style)),
  isBuiltin: row.builtin_key !== null,
  builtinKey: row.builtin_key,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const listSpec: ListSpec<FormatRow, Format, FormatOrderField> = {
  table: "formats",
  columns,
  orderColumns: {
    label: "label COLLATE NOCASE",
    priority: "priority",
    createdAt: "created_at",
    updatedAt: "updated_at",
  },
  search: (term) => ({
    where:
      "(label LIKE $search ESCAPE '\\' OR app_pattern LIKE $search ESCAPE '\\' OR instructions LIKE $search ESCAPE '\\')",
    params: { search: likePattern(term) },
  }),
  toItem: toFormat,
};

type Params = [string, string, string, number, number, string, string];
const params = (input: FormatInput, now: string): Params => [
  input.label,
  input.appPattern,
  input.instructions,
  input.enabled ? 1 : 0,
  input.priority,
  JSON.stringify(input.style),
  now,
];

export function createFormatsRepo(db: Database): FormatsRepo {
  const byId = db.query<FormatRow, [number]>(`SELECT ${columns} FROM formats WHERE id = ?`);
  const everything = db.query<FormatRow, []>(`SELECT ${columns} FROM formats ORDER BY id`);
  const countAll = db.query<{ n: number }, []>("SELECT count(*) AS n FROM formats");
  const insert = db.query<FormatRow, [string | null, ...Params]>(
    `INSERT INTO formats (builtin_key, label, app_pattern, instructions, enabled, priority, style, created_at, updated_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8) ON CONFLICT (builtin_key) DO NOTHING RETURNING ${columns}`,
  );
  const change = db.query<FormatRow, [...Params, number]>(
    `UPDATE formats SET label = ?1, app_pattern = ?2, instructions = ?3, enabled = ?4, priority = ?5, style = ?6,
     updated_at = ?7 WHERE id = ?8 RETURNING ${columns}`,
  );
  const changeBuiltin = db.query<never, [...Params, string]>(
    `UPDATE formats SET label = ?1, app_pattern = ?2, instructions = ?3, enabled = ?4, priority = ?5, style = ?6,
     updated_at = ?7 WHERE builtin_key = ?8`,
  );
  const delUser = db.query<never, [number]>("DELETE FROM formats WHERE id = ? AND builtin_key IS NULL");
  const delUserExcept = db.query<never, [string]>(
    "DELETE FROM formats WHERE builtin_key IS NULL AND id NOT IN (SELECT value FROM json_each(?))",
  );
  const delRetired = db.query<never, [string]>(
    "DELETE FROM formats WHERE builtin_key IS NOT NULL AND builtin_key NOT IN (SELECT value FROM json_each(?))",
  );
  let version = 0;
  const bump = <T>(result: T, changed = true): T => {
    if (changed) version++;
    return result;
  };

  const seed = db.transaction((builtins: readonly BuiltinFormat[]) => {
    const now = new Date().toISOString();
    return builtins.filter((builtin) => insert.get(builtin.key, ...params(builtin, now)) !== null).length;
  });

  const reset = db.transaction((builtins: readonly BuiltinFormat[]) => {
    const now = new Date().toISOString();
    delRetired.run(JSON.stringify(builtins.map((builtin) => builtin.key)));
    for (const builtin of builtins) {
      if (!insert.get(builtin.key, ...params(builtin, now)))
        changeBuiltin.run(...params(builtin, now), builtin.key);
    }
    return builtins.length;
  });

  const importAll = db.transaction((items: readonly FormatItem[], options: ImportOptions) => {
    const summary: ImportSummary = { created: 0, updated: 0, unchanged: 0, deleted: 0 };
    const now = new Date().toISOString();
    const known = new Map(everything.all().map((row) => [identity(row), row]));
    const touched: number[] = [];
    for (const item of items) {
      const key = identity({
        builtin_key: item.builtinKey ?? null,
        label: item.label,
        app_pattern: item.appPattern,
      });
      const prev = known.get(key);
      // A built-in this release does not ship is skipped: only a release adds built-ins.
      if (!prev && item.builtinKey) {
        summary.unchanged++;
        continue;
      }
      let row: FormatRow | null = prev ?? null;
      if (!prev) row = insert.get(null, ...params(item, now));
      else if (!sameContent(prev, item)) row = change.get(...params(item, now), prev.id);
      if (!prev) summary.created++;
      else if (row !== prev) summary.updated++;
      else summary.unchanged++;
      if (row) {
        touched.push(row.id);
        known.set(key, row);
      }
    }
    // Built-ins are never deleted; user formats the items do not name are, keeping the ids of the rest.
    if (options.mode === "replace") summary.deleted = delUserExcept.run(JSON.stringify(touched)).changes;
    const total = countAll.get()?.n ?? 0;
    if (options.maxEntries !== undefined && total > options.maxEntries) {
      throw new AppError(
        "limit_exceeded",
        `The import would leave ${total} formats; the limit is ${options.maxEntries}.`,
        {
          details: { total, limit: options.maxEntries },
        },
      );
    }
    return summary;
  });

  return {
    list: (query) => selectPage(db, listSpec, query),
    all: () => everything.all().map(toFormat),
    get: (id) => {
      const row = byId.get(id);
      return row ? toFormat(row) : null;
    },
    count: () => countAll.get()?.n ?? 0,
    create(input) {
      const row = insert.get(null, ...params(input, new Date().toISOString()));
      if (!row) throw new Error("INSERT … RETURNING gave no row");
      return bump(toFormat(row));
    },
    update(id, input) {
      const row = change.get(...params(input, new Date().toISOString()), id);
      return row ? bump(toFormat(row)) : null;
    },
    remove(id) {
      const removed = delUser.run(id).changes > 0;
      return bump(removed, removed);
    },
    seedBuiltins(builtins) {
      const added = seed(builtins);
      return bump(added, added > 0);
    },
    resetBuiltins: (builtins) => bump(reset(builtins)),
    exportAll: () =>
      everything.all().map((row) => {
        const { label, appPattern, instructions, enabled, priority, style, builtinKey } = toFormat(row);
        return { label, appPattern, instructions, enabled, priority, style, builtinKey };
      }),
    importAll(items, options = {}) {
      const summary = importAll(items, options);
      return bump(summary, summary.created + summary.updated + summary.deleted > 0);
    },
    version: () => version,
  };
}

/** What an import matches on: a built-in's key, else a user format's label and pattern in any case. */
const identity = (row: { builtin_key: string | null; label: string; app_pattern: string }) =>
  row.builtin_key !== null
    ? `builtin\u0000${row.builtin_key}`
    : `user\u0000${row.label.toLowerCase()}\u0000${row.app_pattern.toLowerCase()}`;

// Styles are compared in the schema's key order, so an older row's key order is not a change.
const styleText = (style: unknown) => JSON.stringify(v.parse(storedStyleSchema, style));

const sameContent = (row: FormatRow, item: FormatInput) =>
  row.label === item.label &&
  row.app_pattern === item.appPattern &&
  row.instructions === item.instructions &&
  row.enabled === (item.enabled ? 1 : 0) &&
  row.priority === item.priority &&
  styleText(JSON.parse(row.style)) === styleText(item.style);
