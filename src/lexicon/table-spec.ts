import type * as v from "valibot";

/** How an importable table (dictionary, vocabulary) reads from a JSON array or a CSV file. */
export interface TableSpec<S extends v.GenericSchema> {
  /** The table named in messages: "dictionary", "vocabulary". */
  noun: string;
  /** CSV columns in export order; `required` must appear in an imported header. */
  columns: readonly string[];
  required: readonly string[];
  /** Validates one row (a JSON element, or a CSV row as an object keyed by header). */
  row: S;
  /** Case-folded identity; two rows with the same identity in one file are an error. */
  identity(row: v.InferOutput<S>): string;
  maxRows: number;
}
