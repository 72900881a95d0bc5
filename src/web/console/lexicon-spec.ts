// What tells the dictionary screen from the vocabulary screen: the route, the fields and the words
// used to describe them. Everything else is one table (lexicon-table.tsx).
import type { ComponentChildren } from "preact";
import type { Answer } from "./api.ts";

/** `/api/dictionary` or `/api/vocabulary`. */
export type LexiconPath = `/api/${LexiconSpec["name"]}`;

/** An entry as the API lists it. */
export type LexiconEntry = Answer<"get", LexiconPath>["items"][number];

/** A field of an entry by its API name: the table reads the fields its spec lists. */
export const fieldOf = (entry: LexiconEntry, name: string): unknown =>
  (entry as Record<string, unknown>)[name];

export interface LexiconField {
  /** The API's field name: "key", "value", "term", "notes". */
  name: string;
  /** The column heading. */
  label: string;
  placeholder?: string;
  /** Optional fields are left out of a create when blank; blank clears them in an edit. */
  required: boolean;
}

export interface LexiconSpec {
  /** `/api/<name>`, `<name>.changed`. */
  name: "dictionary" | "vocabulary";
  title: string;
  intro: ComponentChildren;
  /** One item, for labels and messages: "entry", "term". */
  one: string;
  /** The first field is the entry's key (unique, shown in messages). */
  fields: readonly [LexiconField, ...LexiconField[]];
  /** Read-only columns after the fields (the dictionary's usage count). */
  extra?: readonly { label: string; render: (entry: LexiconEntry) => ComponentChildren }[];
  /** What an empty list says, and how to fill it. */
  empty: string;
}
