import type { Context } from "hono";
import * as v from "valibot";
import { parseOrThrow } from "../validation.ts";

/** `/:id` path parameters: a positive whole number (ids are SQLite rowids). */
export const idParamsSchema = v.object({
  id: v.pipe(
    v.string(),
    v.regex(/^[1-9]\d{0,15}$/, "id must be a positive whole number"),
    v.transform(Number),
    v.safeInteger("id is too large"),
  ),
});

/** The validated `:id` of this request; 400 `invalid_request` with the field when it is not one. */
export const readId = (c: Context): number =>
  parseOrThrow(idParamsSchema, c.req.param(), "invalid_request", "path").id;
