import type { FormatStyle } from "./style.ts";

export interface FormatInput {
  label: string;
  appPattern: string;
  instructions: string;
  enabled: boolean;
  priority: number;
  style: FormatStyle;
}

export interface Format extends FormatInput {
  id: number;
  isBuiltin: boolean;
  /** Stable name of a built-in ("email", "terminal", …); null for the user's own formats. */
  builtinKey: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A format as exported: built-ins carry their key so an import updates them instead of duplicating. */
export type FormatItem = FormatInput & { builtinKey?: string | null | undefined };

/** A format shipped with svc. `key` is its stable identity across releases (seeding and reset). */
export interface BuiltinFormat extends FormatInput {
  key: string;
}
