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

/**
 * How deeply a JSON body may nest. No value svc stores needs a tenth of it; far deeper values
 * parse, but overflow the stack later, where they are copied or written back out.
 */
export const maxJsonDepth = 64;

/** The depth of the deepest array or object in `value` (a scalar is 0), found without recursion. */
export function jsonDepth(value: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== "object" || item === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > maxJsonDepth) return deepest;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/** Parses a JSON body: malformed → 400 `invalid_json`, nested over `maxJsonDepth` → 400 `json_too_deep`. */
export function parseJsonBody(text: string, malformed: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError(400, "invalid_json", malformed);
  }
  if (jsonDepth(body) > maxJsonDepth) {
    throw new AppError(
      400,
      "json_too_deep",
      `JSON may nest at most ${maxJsonDepth} arrays or objects deep.`,
      {
        details: { limit: maxJsonDepth },
      },
    );
  }
  return body;
}

/**
 * The essence of a Content-Type ("application/json" of "Application/JSON; charset=utf-8"), or
 * undefined when there is none or it lists several types.
 */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined || contentType.includes(",")) return undefined;
  return (contentType.split(";", 1)[0] ?? "").trim().toLowerCase() || undefined;
}

/**
 * Refuses a body that is not declared as one of `accepted` with 415 `unsupported_media_type`.
 * Requiring `application/json` is what keeps other origins out: a page can send JSON labelled
 * text/plain without asking (a form, a beacon), but JSON labelled as JSON only after a CORS
 * preflight, which svc never grants.
 */
export function requireMediaType(c: Context, accepted: readonly string[]): string {
  const sent = c.req.header("content-type");
  const type = mediaTypeOf(sent);
  if (type !== undefined && accepted.includes(type)) return type;
  throw new AppError(
    415,
    "unsupported_media_type",
    `${sent === undefined ? "The body has no Content-Type" : `Content-Type "${sent}" is not accepted here`}: send ${accepted.join(" or ")}.`,
    { details: { accepted } },
  );
}

/** Reads a JSON body and validates it; malformed JSON is a 400, never a 500. */
export async function readJson<S extends v.GenericSchema>(c: Context, schema: S): Promise<v.InferOutput<S>> {
  requireMediaType(c, ["application/json"]);
  const body = parseJsonBody(
    await c.req.text(),
    "The request body must be valid JSON (Content-Type: application/json).",
  );
  return parseOrThrow(schema, body, "invalid_request", "request body");
}

/** Validates the query string (all values are strings) against `schema`. */
export function readQuery<S extends v.GenericSchema>(c: Context, schema: S): v.InferOutput<S> {
  return parseOrThrow(schema, c.req.query(), "invalid_query", "query");
}
