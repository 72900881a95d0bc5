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
