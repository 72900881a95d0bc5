import * as v from "valibot";

/**
 * A spoken-language value as svc accepts it everywhere (the `language` setting, the `x-language`
 * header, `POST /api/post-process`): "auto" or an ISO 639 code with an optional region, lower-cased.
 */
export const languageSchema = v.pipe(
  v.string(),
  v.trim(),
  v.toLowerCase(),
  v.transform((tag) => tag.replace("_", "-")),
  v.regex(
    /^(?:auto|[a-z]{2,3}(?:-[a-z0-9]{2,8})?)$/,
    'must be "auto" or an ISO 639 code such as "en" or "pt-br"',
  ),
);

/**
 * The primary language of a tag, which is all a speech engine takes: "pt-br", "en_US" and "EN"
 * become "pt", "en" and "en". The region still matters to the text pipeline, not to the engine.
 */
export function engineLanguage(tag: string): string {
  return tag.trim().toLowerCase().split(/[-_]/, 1)[0] ?? "";
}

/** A language value as svc stores it ("EN_us" becomes "en-us"), or undefined when it is not one. */
export function languageTag(value: string): string | undefined {
  const result = v.safeParse(languageSchema, value);
  return result.success ? result.output : undefined;
}
