import * as v from "valibot";

/** `/:id` path parameters: a positive whole number (ids are SQLite rowids). */
export const idParamsSchema = v.object({
  id: v.pipe(
    v.string(),
    v.regex(/^[1-9]\d{0,15}$/, "id must be a positive whole number"),
    v.transform(Number),
    v.safeInteger("id is too large"),
  ),
});
