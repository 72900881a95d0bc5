// JSON request bodies: parsed only after cheap, linear checks bound what parsing may cost.
import { AppError } from "../errors.ts";

/**
 * How deeply a JSON body may nest. No value svc stores needs a tenth of it; far deeper values
 * parse, but overflow the stack later, where they are copied or written back out.
 */
export const maxJsonDepth = 64;

const [quote, backslash, openBracket, openBrace, closeBracket, closeBrace] = [34, 92, 91, 123, 93, 125];

/**
 * The depth of the deepest array or object in the JSON text `text` (a scalar is 0), in one pass
 * over its characters that allocates nothing; stops counting just past `maxJsonDepth`. Walking the
 * parsed value instead cost seconds and a GiB for a 16 MiB array. `text` must be valid JSON.
 */
export function jsonTextDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === quote) {
      // Skip the string: to the next quote that no backslash escapes.
      for (i++; i < text.length; i++) {
        const inner = text.charCodeAt(i);
        if (inner === backslash) i++;
        else if (inner === quote) break;
      }
    } else if (char === openBracket || char === openBrace) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > maxJsonDepth) return deepest;
    } else if (char === closeBracket || char === closeBrace) {
      depth--;
    }
  }
  return deepest;
}

/**
 * How many values (array elements, object members, containers) one JSON body may hold. The
 * largest real body, a full export at the dictionary's and vocabulary's entry limits, holds under
 * 600,000; parsing costs time and memory per value, so a body of millions of tiny values (a 32 MiB
 * array of numbers is 16 million) is refused before it is parsed.
 */
export const maxJsonValues = 1_000_000;

const comma = 44;

/**
 * About how many values the JSON text holds (separators plus containers, outside strings), in one
 * pass that allocates nothing; stops counting just past `limit`.
 */
export function jsonValueCount(text: string, limit = maxJsonValues): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === quote) {
      for (i++; i < text.length; i++) {
        const inner = text.charCodeAt(i);
        if (inner === backslash) i++;
        else if (inner === quote) break;
      }
    } else if (char === comma || char === openBracket || char === openBrace) {
      count++;
      if (count > limit) return count;
    }
  }
  return count;
}

/**
 * Parses a JSON body: more than `maxJsonValues` values → 413 `payload_too_large` (before parsing),
 * malformed → 400 `invalid_json`, nested over `maxJsonDepth` → 400 `json_too_deep`.
 */
export function parseJsonBody(text: string, malformed: string): unknown {
  if (jsonValueCount(text) > maxJsonValues) {
    throw new AppError(
      "payload_too_large",
      `A JSON body may hold at most ${maxJsonValues} values (array elements and object members).`,
      { details: { limit: maxJsonValues } },
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError("invalid_json", malformed);
  }
  if (jsonTextDepth(text) > maxJsonDepth) {
    throw new AppError("json_too_deep", `JSON may nest at most ${maxJsonDepth} arrays or objects deep.`, {
      details: { limit: maxJsonDepth },
    });
  }
  return body;
}
