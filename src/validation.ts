// Validation with valibot that every layer shares: problems as field issues, bounded work.
import * as v from "valibot";
import type { CodeWithStatus } from "./error-codes.ts";
import { AppError } from "./errors.ts";

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

/**
 * A JSON object whose keys are kept exactly as sent. valibot's `record` and `looseObject` drop
 * `constructor`, `prototype` and `__proto__` keys without a word (they guard against prototype
 * pollution in objects they build); a parsed JSON object holds such keys as plain own properties,
 * so passing it through unchanged is safe, and silently losing a user's key is not.
 */
export const jsonObject = (message: string) =>
  v.custom<Record<string, unknown>>(
    (value) => typeof value === "object" && value !== null && !Array.isArray(value),
    message,
  );

/** The most problems one answer lists. */
export const maxReportedIssues = 100;

/**
 * `v.safeParse` that stops collecting problems after about `maxReportedIssues`. valibot records one
 * issue per bad element, which for a request's array of a million numbers costs seconds and
 * hundreds of MiB. Its schemas read `config.abortEarly` as they record each issue and after each bad
 * element or key, so a getter that turns true once the budget is spent ends the walk; `safeParse`
 * would copy the flag once, hence the direct `~run`. Whether the input is valid never depends on it.
 */
export function safeParseBounded<S extends v.GenericSchema>(schema: S, input: unknown): v.SafeParseResult<S> {
  let reads = 0;
  const config: v.Config<v.InferIssue<S>> = {
    get abortEarly() {
      reads += 1;
      return reads > maxReportedIssues;
    },
  };
  const dataset = schema["~run"]({ value: input }, config);
  return {
    typed: dataset.typed,
    success: !dataset.issues,
    output: dataset.value,
    issues: dataset.issues,
  } as v.SafeParseResult<S>;
}

/**
 * Validates `input`; on failure, at most `maxReportedIssues` problems, as field-level details and
 * as one "path: message" line each.
 */
export function parseReported<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
): { success: true; output: v.InferOutput<S> } | { success: false; details: FieldIssue[]; lines: string[] } {
  const result = safeParseBounded(schema, input);
  if (result.success) return { success: true, output: result.output };
  const details = describeIssues(result.issues.slice(0, maxReportedIssues));
  const lines = details.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message));
  return { success: false, details, lines };
}

/** Validates `input` or throws 400 `code` with field-level details (at most `maxReportedIssues`). */
export function parseOrThrow<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  code: CodeWithStatus<400> = "invalid_request",
  what = "request",
): v.InferOutput<S> {
  const result = parseReported(schema, input);
  if (result.success) return result.output;
  throw new AppError(code, `Invalid ${what}: ${result.lines.join("; ")}`, { details: result.details });
}

/**
 * Returns `schema` when every `T` is a valid output of it, and fails to compile otherwise: a
 * response schema documented for a type the code keeps richer (unions the reference spells as
 * strings) still cannot drift from it. Types that need nothing richer are inferred from their
 * schemas instead (`v.InferOutput`).
 */
export const describes =
  <T>() =>
  <S extends v.GenericSchema>(schema: S & ([T] extends [v.InferOutput<S>] ? unknown : never)): S =>
    schema;
