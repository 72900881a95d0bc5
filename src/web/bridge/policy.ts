import { reservedSlugs, slugPattern } from "../../plugins/slug.ts";

/** What the console may request for a plugin page: the path to send, or why not. */
export type BridgePathDecision = { ok: true; path: string } | { ok: false; reason: string };

// svc's own routes under a plugin's namespace (src/routes/plugins.ts): a page must not switch
// its plugin on or off. The static ui/ files are the plugin's own, so they stay reachable.
const managementActions = new Set(["enable", "disable"]);

/**
 * svc routes outside its namespace a page may call besides its own: health, and transcription (a
 * page that transcribes files, as Freestyle's audio-transcription plugin does). Transcribing reads
 * nothing stored and changes nothing but history; every other route stays out of reach.
 */
export const bridgeRoutes: readonly string[] = ["/api/health", "/api/transcribe"];

const maxLength = 8192;
// C0 controls and DEL: the URL parser strips tabs and newlines (so `.\n.` becomes `..`) and
// trims the rest, which would let the request differ from the path checked here.
// (Written as "neither printable ASCII nor non-ASCII": a regex may not spell control characters.)
const control = /[^ -~\u0080-\uffff]/;
// What a path segment may hold once non-ASCII is encoded: RFC 3986 pchar, plus "%" escapes.
const pathCharacters = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;
// Encoded "/", "\" and "%" (double encoding), and encoded controls: each could be decoded into
// a separator or a dot segment by whatever reads the path next (a proxy, Hono, the plugin).
const encodedForbidden = /%(?:2f|5c|25|[01][0-9a-f]|7f)/i;

const refuse = (reason: string): BridgePathDecision => ({ ok: false, reason });

/** Non-ASCII characters percent-encoded as UTF-8, as the URL parser would; undefined if a lone surrogate. */
function encodeNonAscii(path: string): string | undefined {
  try {
    return path.replace(/[^ -~]+/gu, (run) => encodeURIComponent(run));
  } catch {
    return undefined;
  }
}

/**
 * The path with escapes of unreserved characters (letters, digits, `-._~`) decoded, as RFC 3986
 * §6.2.2.2 makes them equivalent and as the router decodes them: `%64isable` is `disable` to svc,
 * so it must be to this check too. The path is sent in this form.
 */
function normalise(path: string): string {
  return path.replace(/%([0-9a-f]{2})/gi, (encoded, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return /^[A-Za-z0-9\-._~]$/.test(char) ? char : encoded;
  });
}

/** The decoded segments of an absolute path, or why it is refused. */
function segmentsOf(path: string): string[] | string {
  if (!pathCharacters.test(path)) return "it holds characters that must be percent-encoded";
  if (/%(?![0-9a-f]{2})/i.test(path)) return "it holds a stray % that is not an escape";
  if (encodedForbidden.test(path))
    return "encoded slashes, backslashes, percent signs and control characters are not allowed";
  const raw = path.split("/").slice(1);
  const segments: string[] = [];
  for (const [index, segment] of raw.entries()) {
    if (segment === "" && index < raw.length - 1) return "empty segments (//) are not allowed";
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return "it is not valid percent-encoded UTF-8";
    }
    if (decoded === "." || decoded === "..") return "dot segments (. and ..) are not allowed";
    segments.push(decoded);
  }
  return segments;
}

/**
 * Decides whether a plugin page's `window.svc.api(path)` may be sent for the plugin `slug`:
 * only `bridgeRoutes` and paths in `/api/plugins/<slug>` or below it. The path must already be in
 * its final form — no `.`/`..` segments, encoded separators or double encoding in any spelling —
 * so the request cannot be normalised into another route after this check; escapes of unreserved
 * characters are decoded before it, and the path is sent so. A `#fragment` is dropped and the
 * query kept as it is; non-ASCII in the path is percent-encoded.
 */
export function allowBridgePath(slug: string, path: string): BridgePathDecision {
  if (!slugPattern.test(slug) || reservedSlugs.has(slug)) return refuse(`"${slug}" is not a plugin slug`);
  if (typeof path !== "string") return refuse("the path must be a string");
  if (path.length > maxLength) return refuse(`the path is longer than ${maxLength} characters`);
  if (control.test(path)) return refuse("it holds control characters");
  const withoutFragment = path.split("#", 1)[0] ?? "";
  const queryAt = withoutFragment.indexOf("?");
  const rawPath = queryAt === -1 ? withoutFragment : withoutFragment.slice(0, queryAt);
  const query = queryAt === -1 ? "" : withoutFragment.slice(queryAt);
  if (!rawPath.startsWith("/")) return refuse("it must be a path starting with /, not a URL");
  if (rawPath.startsWith("//")) return refuse("protocol-relative URLs are not allowed");
  if (rawPath.includes("\\")) return refuse("backslashes are not allowed");
  const encoded = encodeNonAscii(rawPath);
  if (encoded === undefined) return refuse("it is not valid Unicode");
  const normalised = normalise(encoded);
  const segments = segmentsOf(normalised);
  if (typeof segments === "string") return refuse(segments);
  const allowed = { ok: true, path: normalised + query } as const;
  if (bridgeRoutes.includes(normalised)) return allowed;
  // Decoded segments: what the router compares with its routes.
  const [api, plugins, namespace, action, ...rest] = segments;
  if (api !== "api" || plugins !== "plugins" || namespace !== slug)
    return refuse(`only /api/plugins/${slug}/…, ${bridgeRoutes.join(" and ")} are reachable from this page`);
  if (action !== undefined && managementActions.has(action) && rest.every((part) => part === ""))
    return refuse(`/api/plugins/${slug}/${action} is svc's own route, not the plugin's`);
  return allowed;
}
