// JSON request bodies: parsed only after cheap, linear checks bound what parsing may cost.
import { AppError } from "../errors.ts";

/**
 * How deeply a JSON body may nest. No value svc stores needs a tenth of it; far deeper values
 * parse, but overflow the stack later, where they are copied or written back out.
 */
export const maxJsonDepth = 64;

/**
 * How many values (array elements, object members, containers) one JSON body may hold. The
 * largest real body, a full export at the dictionary's and vocabulary's entry limits, holds under
 * 600,000; parsing costs time and memory per value, so a body of millions of tiny values (a 32 MiB
 * array of numbers is 16 million) is refused before it is parsed.
 */
export const maxJsonValues = 1_000_000;

const [quote, backslash, comma] = [34, 92, 44];
const [openBracket, openBrace, closeBracket, closeBrace] = [91, 123, 93, 125];

/** What one pass over a JSON text finds: its deepest nesting and about how many values it holds. */
export interface JsonShape {
  depth: number;
  values: number;
}

/**
 * The depth of the deepest array or object (a scalar is 0) and the number of values (separators
 * plus containers, outside strings) of a JSON text, as a string or as its UTF-8 bytes (the marks
 * it looks for are ASCII, which no multi-byte character contains), in one pass that allocates
 * nothing; it stops as soon as either passes its limit. Walking the parsed value instead cost
 * seconds and a GiB for a 16 MiB array.
 */
export function jsonShape(
  text: string | Uint8Array,
  limits = { depth: maxJsonDepth, values: maxJsonValues },
): JsonShape {
  const codeAt = typeof text === "string" ? (i: number) => text.charCodeAt(i) : (i: number) => text[i] ?? 0;
  let depth = 0;
  let deepest = 0;
  let values = 0;
  for (let i = 0; i < text.length; i++) {
    const char = codeAt(i);
    if (char === quote) {
      // Skip the string: to the next quote that no backslash escapes.
      for (i++; i < text.length; i++) {
        const inner = codeAt(i);
        if (inner === backslash) i++;
        else if (inner === quote) break;
      }
    } else if (char === openBracket || char === openBrace) {
      depth++;
      values++;
      if (depth > deepest) deepest = depth;
      if (deepest > limits.depth || values > limits.values) break;
    } else if (char === closeBracket || char === closeBrace) {
      depth--;
    } else if (char === comma) {
      values++;
      if (values > limits.values) break;
    }
  }
  return { depth: deepest, values };
}

const utf8 = new TextDecoder();

/**
 * Parses a JSON body (its text, or its bytes: then a body refused for its size is never decoded):
 * more than `maxJsonValues` values → 413 `payload_too_large` (before parsing), malformed → 400
 * `invalid_json`, nested over `maxJsonDepth` → 400 `json_too_deep`.
 */
export function parseJsonBody(body: string | Uint8Array, malformed: string): unknown {
  const shape = jsonShape(body);
  if (shape.values > maxJsonValues) {
    throw new AppError(
      "payload_too_large",
      `A JSON body may hold at most ${maxJsonValues} values (array elements and object members).`,
      { details: { limit: maxJsonValues } },
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(typeof body === "string" ? body : utf8.decode(body));
  } catch {
    throw new AppError("invalid_json", malformed);
  }
  if (shape.depth > maxJsonDepth) {
    throw new AppError("json_too_deep", `JSON may nest at most ${maxJsonDepth} arrays or objects deep.`, {
      details: { limit: maxJsonDepth },
    });
  }
  return value;
}
