import * as v from "valibot";
import { languageSchema } from "../settings/values.ts";

export { languageSchema };

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
