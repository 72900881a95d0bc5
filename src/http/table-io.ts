import type { Context } from "hono";
import * as v from "valibot";
import { CsvError, parseCsv, toCsv } from "../data/csv.ts";
import { AppError, payloadTooLarge } from "../errors.ts";
import type { TableSpec } from "../lexicon/table-spec.ts";
import { parseJsonBody } from "./json-body.ts";
import { requireMediaType } from "./validate.ts";

/** `?format=` of an export route. */
export const exportQuerySchema = v.object({
  format: v.optional(v.picklist(["json", "csv"], "format must be json or csv"), "json"),
});

/** `?mode=` of an import route: merge (upsert) or replace (the file becomes the table). */
export const importQuerySchema = v.object({
  mode: v.optional(v.picklist(["merge", "replace"], "mode must be merge or replace"), "merge"),
});

/** What an import changed. */
export const importSummarySchema = v.object({
  created: v.number(),
  updated: v.number(),
  unchanged: v.number(),
  deleted: v.number(),
});

/** One rejected row. `line` for CSV (physical line), `index` for JSON (0-based array index). */
export interface RowProblem {
  line?: number;
  index?: number;
  field?: string;
  message: string;
}

interface RawRow {
  where: { line: number } | { index: number };
  value: unknown;
}

const maxReported = 100;

const invalidCsv = (error: CsvError) =>
  new AppError("invalid_csv", `The CSV file is malformed at ${error.message}.`, {
    details: { line: error.line },
  });

function csvRows(text: string, spec: TableSpec<v.GenericSchema>): RawRow[] {
  let records: ReturnType<typeof parseCsv>;
  try {
    records = parseCsv(text);
  } catch (error) {
    if (error instanceof CsvError) throw invalidCsv(error);
    throw error;
  }
  const rows = records.filter((record) => record.fields.some((field) => field.trim() !== ""));
  assertRowCount(rows.length - 1, spec.maxRows);
  const first = rows.shift();
  const header = first?.fields.map((name) => name.trim().toLowerCase()) ?? [];
  const missing = spec.required.filter((column) => !header.includes(column));
  if (missing.length > 0) {
    throw new AppError(
      "invalid_csv",
      `The CSV header must name the columns ${spec.columns.join(",")}; missing: ${missing.join(", ")}.`,
      { details: { line: first?.line ?? 1, header } },
    );
  }
  return rows.map((record) => {
    if (record.fields.length > header.length) {
      return { where: { line: record.line }, value: new TooManyFields(record.fields.length, header.length) };
    }
    const value = Object.fromEntries(header.map((name, i) => [name, record.fields[i] ?? ""]));
    return { where: { line: record.line }, value };
  });
}

/** Counted before any row is copied or validated: a file of millions of rows is refused at once. */
function assertRowCount(rows: number, limit: number): void {
  if (rows > limit) {
    throw payloadTooLarge(`The file has ${rows} rows; at most ${limit} can be imported.`, { rows, limit });
  }
}

class TooManyFields {
  constructor(
    readonly found: number,
    readonly expected: number,
  ) {}
}

function jsonRows(body: Uint8Array, maxRows: number): RawRow[] {
  const parsed = parseJsonBody(body, "The import body is not valid JSON.");
  if (!Array.isArray(parsed)) {
    throw new AppError("invalid_request", "A JSON import must be an array of objects.");
  }
  assertRowCount(parsed.length, maxRows);
  return parsed.map((value, index) => ({ where: { index }, value }));
}

/**
 * Reads an import body: a JSON array (application/json) or CSV with a header row (text/csv).
 * All or nothing: any bad row (invalid field, duplicate in the file, extra CSV fields) fails the
 * whole request with 400 `invalid_import` listing up to 100 problems; blank CSV lines are skipped.
 * More than `maxRows` rows is 413.
 */
export async function readTable<S extends v.GenericSchema>(
  c: Context,
  spec: TableSpec<S>,
): Promise<v.InferOutput<S>[]> {
  const json = requireMediaType(c, ["application/json", "text/csv"]) === "application/json";
  const rows = json
    ? jsonRows(new Uint8Array(await c.req.arrayBuffer()), spec.maxRows)
    : csvRows(await c.req.text(), spec);
  const problems: RowProblem[] = [];
  const seen = new Map<string, RawRow["where"]>();
  const items: v.InferOutput<S>[] = [];
  for (const row of rows) {
    for (const problem of rowProblems(row, spec, seen, items)) problems.push({ ...row.where, ...problem });
  }
  if (problems.length > 0) throw importRejected(problems, spec.noun);
  return items;
}

function rowProblems<S extends v.GenericSchema>(
  row: RawRow,
  spec: TableSpec<S>,
  seen: Map<string, RawRow["where"]>,
  items: v.InferOutput<S>[],
): { field?: string; message: string }[] {
  if (row.value instanceof TooManyFields) {
    return [
      {
        message: `${row.value.found} fields but the header has ${row.value.expected}; quote fields with commas`,
      },
    ];
  }
  const result = v.safeParse(spec.row, row.value);
  if (!result.success) {
    return result.issues.map((issue) => ({
      field: v.getDotPath(issue) ?? undefined,
      message: issue.message,
    }));
  }
  const identity = spec.identity(result.output);
  const first = seen.get(identity);
  if (first) return [{ message: `duplicates ${describe(first)} (compared ignoring letter case)` }];
  seen.set(identity, row.where);
  items.push(result.output);
  return [];
}

const describe = (where: { line?: number; index?: number }) =>
  where.line !== undefined ? `line ${where.line}` : `item ${where.index}`;

function importRejected(problems: RowProblem[], noun: string): AppError {
  const first = problems[0];
  const summary = first
    ? ` First: ${describe(first)}: ${first.field ? `${first.field}: ` : ""}${first.message}.`
    : "";
  return new AppError(
    "invalid_import",
    `${problems.length} ${noun} row(s) are invalid, so nothing was imported.${summary} Fix them and send the file again.`,
    { details: { errorCount: problems.length, errors: problems.slice(0, maxReported) } },
  );
}

/** Sends rows as a JSON or CSV download named `<name>-<date>.<ext>`. CSV starts with a BOM so Excel reads UTF-8. */
export function sendTable<R extends object>(
  c: Context,
  name: string,
  format: "json" | "csv",
  columns: readonly (keyof R & string)[],
  rows: readonly R[],
): Response {
  const filename = `${name}-${new Date().toISOString().slice(0, 10)}.${format}`;
  const disposition = `attachment; filename="${filename}"`;
  if (format === "json") {
    return c.body(`${JSON.stringify(rows, null, 2)}\n`, 200, {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Disposition": disposition,
    });
  }
  const body = `\uFEFF${toCsv([columns, ...rows.map((row) => columns.map((column) => String(row[column] ?? "")))])}`;
  return c.body(body, 200, { "Content-Type": "text/csv; charset=utf-8", "Content-Disposition": disposition });
}
