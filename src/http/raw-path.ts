/**
 * The request path exactly as it arrived (percent-encodings kept), without query or fragment. The
 * request log prints it, and plugin slug matching works on this one value, so `%2F`, `%61` or
 * other spellings of a segment never reach a namespace they only decode to.
 */
export function rawPath(url: string): string {
  // Bun.serve leaves the URL relative ("/path") when the Host header is missing or malformed.
  const start = url.startsWith("/") ? 0 : url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  let end = url.indexOf("?", start);
  const hash = url.indexOf("#", start);
  if (hash >= 0 && (end < 0 || hash < end)) end = hash;
  return end < 0 ? url.slice(start) : url.slice(start, end);
}

// A percent-encoded letter, digit or `-._~`: RFC 3986 §2.3 says no client need encode them, and a
// path that does is another spelling of a plain one.
const encodedUnreserved = /%(?:[46][1-9A-Fa-f]|[57][0-9Aa]|3[0-9]|2[DEde]|5[Ff]|7[Ee])/;
const malformedEscape = /%(?![0-9A-Fa-f]{2})/;

/**
 * The path the router routes and the access gate decides on, from the raw path: percent-encodings
 * decoded once, as `decodeURI` does (an encoded `/`, `?`, `#` or `%` stays encoded, so it never
 * splits or joins segments). Null for a path that is not in canonical form: a malformed escape,
 * escaped bytes that are not UTF-8, or an escaped letter, digit or `-._~`, so that a route has
 * exactly one spelling that reaches it. Bun has already removed dot segments and turned `\` into `/`.
 */
export function routePath(raw: string): string | null {
  if (!raw.includes("%")) return raw;
  if (malformedEscape.test(raw) || encodedUnreserved.test(raw)) return null;
  try {
    // `%25` is kept as it came: decoding it would make a new escape of the characters after it.
    return decodeURI(raw.replaceAll("%25", "%2525"));
  } catch {
    return null;
  }
}
