import * as v from "valibot";

/**
 * Deterministic style options a format applies during cleanup. Stored with each format
 * (Data APIs) and read by the cleanup stage (text pipeline).
 */
export const formatStyleSchema = v.strictObject({
  /** Capitalise sentence starts and the pronoun "I". Off for terminals and code editors. */
  capitalize: v.optional(v.boolean(), true),
  /** Turn spoken punctuation ("comma", "new line", …) into symbols. Off for terminals. */
  spokenPunctuation: v.optional(v.boolean(), true),
  /** Remove filler words (um, uh, …). */
  removeFillers: v.optional(v.boolean(), true),
  /**
   * What to do with the final sentence mark: `keep` leaves the text as dictated, `add` ends it
   * with a period when it has no closing mark, `strip` removes a trailing period (chat style;
   * `?` and `!` are kept).
   */
  endPunctuation: v.optional(v.picklist(["keep", "add", "strip"]), "keep"),
});

export type FormatStyle = v.InferOutput<typeof formatStyleSchema>;

export const defaultFormatStyle: FormatStyle = v.parse(formatStyleSchema, {});
