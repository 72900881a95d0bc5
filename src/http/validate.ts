import type { Context } from "hono";
import * as v from "valibot";
import { AppError } from "../errors.ts";

export interface FieldIssue {
  path: string;
  message: string;
}

export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): FieldIssue[] {
  return issues.map((issue) => ({
    path: v.getDotPath(issue) ?? "",
    message: issue.message,
  }));
}

/** Validates `input` or throws 400 `code` with field-level details. */
export function parseOrThrow<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  code = "invalid_request",
  what = "request",
): v.InferOutput<S> {
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  const details = describeIssues(result.issues);
  const summary = details.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message));
  throw new AppError(400, code, `Invalid ${what}: ${summary.join("; ")}`, { details });
}

/** Reads a JSON body and validates it; malformed JSON is a 400, never a 500. */
export async function readJson<S extends v.GenericSchema>(c: Context, schema: S): Promise<v.InferOutput<S>> {
  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    throw new AppError(
      400,
      "invalid_json",
      "The request body must be valid JSON (Content-Type: application/json).",
    );
  }
  return parseOrThrow(schema, body, "invalid_request", "request body");
}

/** Validates the query string (all values are strings) against `schema`. */
export function readQuery<S extends v.GenericSchema>(c: Context, schema: S): v.InferOutput<S> {
  return parseOrThrow(schema, c.req.query(), "invalid_query", "query");
}
