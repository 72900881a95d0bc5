/**
 * Origin allow-list (docs/SPEC.md §5). Browsers send the serialised origin in canonical form, so a
 * header is trusted only when it equals a canonical trusted origin exactly: no prefix or
 * substring tests, no DNS, no normalisation that could turn a look-alike into a match.
 */

const loopbackOrigin = /^https?:\/\/(?:localhost|127\.0\.0\.1|\[::1\])(?::([1-9]\d{0,4}))?$/;
// The desktop app registers `app` as a standard scheme with a fixed host, e.g. app://svc.
const appOrigin = /^app:\/\/[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

function validPort(port: string | undefined): boolean {
  return port === undefined || Number(port) <= 65535;
}

/**
 * How far an `Origin` (one raw header value) is trusted. `named`: the desktop app's `app://`
 * origin or an exact `SVC_TRUSTED_ORIGINS` entry, trusted with any request. `loopback`: a page on
 * some port of this machine (docs/SPEC.md §5), trusted only with requests a browser preflights, since
 * every local dev server and web tool is such a page. `undefined`: not trusted.
 */
export function originTrust(origin: string, extra: ReadonlySet<string>): "named" | "loopback" | undefined {
  if (extra.has(origin) || appOrigin.test(origin)) return "named";
  const loopback = loopbackOrigin.exec(origin);
  return loopback && validPort(loopback[1]) ? "loopback" : undefined;
}

/**
 * True when `origin` is the origin the request was sent to: a page svc served itself (the
 * console), reached by the name in `Host`, which the Host check has already passed. The scheme is
 * not compared: behind a TLS proxy the browser's origin is https while svc hears plain http.
 */
export function isSameOrigin(origin: string, host: string | null): boolean {
  if (host === null) return false;
  const start = origin.startsWith("http://") ? 7 : origin.startsWith("https://") ? 8 : -1;
  return start > 0 && origin.length - start === host.length && origin.endsWith(host);
}

/**
 * Canonicalises operator-supplied origins (`SVC_TRUSTED_ORIGINS`). An entry must be exactly an
 * origin — scheme, host, optional port — so a path, a wildcard or `null` is reported, not guessed.
 */
export function parseOriginList(entries: string[]): { origins: string[]; invalid: string[] } {
  const origins: string[] = [];
  const invalid: string[] = [];
  for (const entry of entries) {
    const origin = canonicalOrigin(entry);
    if (origin) origins.push(origin);
    else invalid.push(entry);
  }
  return { origins, invalid };
}

function canonicalOrigin(entry: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/?#@\s]+\/?$/i.test(entry)) return undefined;
  try {
    const url = new URL(entry);
    if (
      url.username ||
      url.password ||
      url.search ||
      url.hash ||
      (url.pathname !== "/" && url.pathname !== "")
    )
      return undefined;
    if (url.protocol === "http:" || url.protocol === "https:") return url.origin;
    // Custom schemes have an opaque `origin` in WHATWG URL; browsers still send scheme://host.
    return `${url.protocol}//${url.host}`.toLowerCase();
  } catch {
    return undefined;
  }
}
