/**
 * Host allow-list against DNS rebinding (docs/security.md; docs/ARCHITECTURE.md). A rebound
 * page can forge nothing but its own host name, so only names that cannot be rebound pass: IP
 * literals (no DNS lookup happens), `localhost`, and the names the operator lists.
 */

export type HostVerdict = "ok" | "missing" | "malformed" | "untrusted";

// reg-name or IPv4 | [IPv6], then an optional port. Userinfo, paths and backslashes never match.
const hostGrammar = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9](?:[a-z0-9.-]*[a-z0-9])?))(?::(\d{1,5}))?$/i;
const ipv4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function isIpv6(text: string): boolean {
  if (!text.includes(":")) return false;
  try {
    return new URL(`http://[${text}]/`).hostname.length > 2;
  } catch {
    return false;
  }
}

function matchesAllowed(name: string, allowed: readonly string[]): boolean {
  for (const entry of allowed) {
    // A leading dot allows the name and every subdomain, as in Vite's allowedHosts.
    if (entry.startsWith(".")) {
      if (name === entry.slice(1) || name.endsWith(entry)) return true;
    } else if (name === entry) {
      return true;
    }
  }
  return false;
}

export function checkHost(header: string | null | undefined, allowed: readonly string[]): HostVerdict {
  if (header === null || header === undefined || header === "") return "missing";
  const match = hostGrammar.exec(header);
  if (!match) return "malformed";
  const [, v6, name, port] = match;
  if (port !== undefined && Number(port) > 65535) return "malformed";
  if (v6 !== undefined) return isIpv6(v6) ? "ok" : "malformed";
  const host = (name ?? "").toLowerCase();
  if (ipv4.test(host)) return "ok";
  // Numeric look-alikes (127.1, 0x7f.1, 2130706433) are not IPv4 literals browsers send.
  if (/^(?:0x[0-9a-f]*|\d+)(?:\.(?:0x[0-9a-f]*|\d+))*$/i.test(host)) return "malformed";
  if (host === "localhost") return "ok";
  return matchesAllowed(host, allowed) ? "ok" : "untrusted";
}

/**
 * The Host a request was sent to, as its URL says: Bun.serve builds `request.url` from the Host
 * header, and leaves the URL relative ("/path") when Host is missing or malformed. Reading the
 * URL instead of the header spares Bun copying every request header into a Headers object.
 */
export function hostOf(url: string): string | null {
  const scheme = url.startsWith("http://") ? 7 : url.startsWith("https://") ? 8 : -1;
  if (scheme < 0) return null;
  const end = url.indexOf("/", scheme);
  return url.slice(scheme, end < 0 ? undefined : end);
}
