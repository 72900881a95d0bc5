import type { AppContext } from "./app-context.ts";
import { type CompiledPattern, compilePattern, matchesPattern, toMatchTarget } from "./pattern.ts";
import type { Format } from "./types.ts";

export interface FormatMatcher {
  /** The format for this app context, or null (no context, or nothing matches). */
  match(context: AppContext | null): Format | null;
}

/** What the matcher reads formats from: the formats repository. */
export interface FormatSource {
  all(): Format[];
  version(): number;
}

/**
 * Match order: enabled formats only; the user's own formats before built-ins; then higher
 * `priority` first; then the older format (lower id). The first format whose pattern matches wins.
 */
export function matchOrder(a: Format, b: Format): number {
  return Number(a.isBuiltin) - Number(b.isBuiltin) || b.priority - a.priority || a.id - b.id;
}

/** Compiles the formats once; matching is then a few string comparisons per format. */
export function compileFormats(formats: readonly Format[]): FormatMatcher {
  const compiled: { format: Format; pattern: CompiledPattern }[] = formats
    .filter((format) => format.enabled)
    .sort(matchOrder)
    .map((format) => ({ format, pattern: compilePattern(format.appPattern).compiled }));
  return {
    match(context) {
      if (!context) return null;
      const target = toMatchTarget(context);
      return compiled.find((entry) => matchesPattern(entry.pattern, target))?.format ?? null;
    },
  };
}

/** A matcher over the repository that recompiles only when the formats have changed. */
export function createFormatMatcher(source: FormatSource): FormatMatcher {
  let compiledAt = -1;
  let current: FormatMatcher = compileFormats([]);
  return {
    match(context) {
      const version = source.version();
      if (version !== compiledAt) {
        current = compileFormats(source.all());
        compiledAt = version;
      }
      return current.match(context);
    },
  };
}
