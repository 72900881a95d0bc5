import type { Context } from "hono";
import type * as v from "valibot";
import { AppError } from "../errors.ts";
import { parseOrThrow } from "../validation.ts";
import { parseJsonBody } from "./json-body.ts";

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
    "unsupported_media_type",
    `${sent === undefined ? "The body has no Content-Type" : `Content-Type "${sent}" is not accepted here`}: send ${accepted.join(" or ")}.`,
    { details: { accepted } },
  );
}

/** Reads a JSON body and validates it; malformed JSON is a 400, never a 500. */
export async function readJson<S extends v.GenericSchema>(c: Context, schema: S): Promise<v.InferOutput<S>> {
  requireMediaType(c, ["application/json"]);
  const body = parseJsonBody(
    new Uint8Array(await c.req.arrayBuffer()),
    "The request body must be valid JSON (Content-Type: application/json).",
  );
  return parseOrThrow(schema, body, "invalid_request", "request body");
}

/** Validates the query string (all values are strings) against `schema`. */
export function readQuery<S extends v.GenericSchema>(c: Context, schema: S): v.InferOutput<S> {
  return parseOrThrow(schema, c.req.query(), "invalid_query", "query");
}
