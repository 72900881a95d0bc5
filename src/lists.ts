import * as v from "valibot";

/** Lists everywhere answer `{items, total, limit, offset}`. */
export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

export const maxPageSize = 500;

const wholeNumber = (name: string, min: number, max: number, fallback: number, description: string) =>
  v.pipe(
    v.optional(v.string(), String(fallback)),
    v.description(description),
    v.regex(/^\d{1,9}$/, `${name} must be a whole number`),
    v.transform(Number),
    v.minValue(min, `${name} must be at least ${min}`),
    v.maxValue(max, `${name} must be at most ${max}`),
  );

/**
 * Query schema for a list route: `limit` (1..500, default 50), `offset`, `search` and
 * `orderBy=<field>[:asc|:desc]` restricted to `fields`.
 */
export function listQuerySchema<const F extends readonly [string, ...string[]]>(
  fields: F,
  defaultOrder: string,
) {
  const orders = fields.flatMap((field) => [field, `${field}:asc`, `${field}:desc`]);
  return v.object({
    limit: wholeNumber("limit", 1, maxPageSize, 50, `Page size: 1-${maxPageSize}, default 50.`),
    offset: wholeNumber("offset", 0, 1_000_000_000, 0, "Items to skip, default 0."),
    search: v.optional(
      v.pipe(v.string(), v.trim(), v.maxLength(200, "search must be at most 200 characters")),
    ),
    orderBy: v.pipe(
      v.optional(v.string(), defaultOrder),
      v.description(`One of ${fields.join(", ")}, optionally with :asc or :desc; default ${defaultOrder}.`),
      v.picklist(orders, `orderBy must be one of ${fields.join(", ")}, optionally with :asc or :desc`),
      v.transform((value) => {
        const [field, direction] = value.split(":");
        return { field: field as F[number], direction: direction === "desc" ? "DESC" : "ASC" } as const;
      }),
    ),
  });
}

/** Escapes `%`, `_` and `\` for `LIKE ? ESCAPE '\'`, so a search for "50%" means 50%. */
export function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** The documented shape of a list route's answer (see Page). */
export const pageSchema = (item: v.GenericSchema) =>
  v.object({ items: v.array(item), total: v.number(), limit: v.number(), offset: v.number() });
