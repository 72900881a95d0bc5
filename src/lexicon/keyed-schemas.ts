import * as v from "valibot";
import { normalizeTerm } from "../fold.ts";

/** A dictionary key or vocabulary term: trimmed, inner whitespace squashed, not blank, at most `max` characters. */
export const keySchema = (field: string, max: number) =>
  v.pipe(
    v.string(`${field} must be a string`),
    v.transform(normalizeTerm),
    v.minLength(1, `${field} must not be blank`),
    v.maxLength(max, `${field} must be at most ${max} characters`),
  );
