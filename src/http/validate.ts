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

/** Validates `input` or throws 400 `code` with field-level details (at most `maxReportedIssues`). */
export function parseOrThrow<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  code = "invalid_request",
  what = "request",
): v.InferOutput<S> {
  const result = safeParseBounded(schema, input);
  if (result.success) return result.output;
  const details = describeIssues(result.issues.slice(0, maxReportedIssues));
  const summary = details.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message));
  throw new AppError(400, code, `Invalid ${what}: ${summary.join("; ")}`, { details });
}

/**
 * How deeply a JSON body may nest. No value svc stores needs a tenth of it; far deeper values
 * parse, but overflow the stack later, where they are copied or written back out.
 */
export const maxJsonDepth = 64;

const [quote, backslash, openBracket, openBrace, closeBracket, closeBrace] = [34, 92, 91, 123, 93, 125];

/**
 * The depth of the deepest array or object in the JSON text `text` (a scalar is 0), in one pass
 * over its characters that allocates nothing; stops counting just past `maxJsonDepth`. Walking the
 * parsed value instead cost seconds and a GiB for a 16 MiB array. `text` must be valid JSON.
 */
export function jsonTextDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === quote) {
      // Skip the string: to the next quote that no backslash escapes.
      for (i++; i < text.length; i++) {
        const inner = text.charCodeAt(i);
        if (inner === backslash) i++;
        else if (inner === quote) break;
      }
    } else if (char === openBracket || char === openBrace) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > maxJsonDepth) return deepest;
    } else if (char === closeBracket || char === closeBrace) {
      depth--;
    }
  }
  return deepest;
}

/**
 * How many values (array elements, object members, containers) one JSON body may hold. The
 * largest real body, a full export at the dictionary's and vocabulary's entry limits, holds under
 * 600,000; parsing costs time and memory per value, so a body of millions of tiny values (a 32 MiB
 * array of numbers is 16 million) is refused before it is parsed.
 */
export const maxJsonValues = 1_000_000;

const comma = 44;

/**
 * About how many values the JSON text holds (separators plus containers, outside strings), in one
 * pass that allocates nothing; stops counting just past `limit`.
 */
export function jsonValueCount(text: string, limit = maxJsonValues): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === quote) {
      for (i++; i < text.length; i++) {
        const inner = text.charCodeAt(i);
        if (inner === backslash) i++;
        else if (inner === quote) break;
      }
    } else if (char === comma || char === openBracket || char === openBrace) {
      count++;
      if (count > limit) return count;
    }
  }
  return count;
}

/**
 * Parses a JSON body: more than `maxJsonValues` values → 413 `payload_too_large` (before parsing),
 * malformed → 400 `invalid_json`, nested over `maxJsonDepth` → 400 `json_too_deep`.
 */
export function parseJsonBody(text: string, malformed: string): unknown {
  if (jsonValueCount(text) > maxJsonValues) {
    throw new AppError(
      413,
      "payload_too_large",
      `A JSON body may hold at most ${maxJsonValues} values (array elements and object members).`,
      { details: { limit: maxJsonValues } },
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError(400, "invalid_json", malformed);
  }
  if (jsonTextDepth(text) > maxJsonDepth) {
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
