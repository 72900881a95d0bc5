import { AppError } from "../errors.ts";
import { checkHost, type HostVerdict, hostOf } from "./host.ts";
import { isSameOrigin, originTrust } from "./origin.ts";
import { wasPreflighted } from "./preflight.ts";

export interface GuardOptions {
  trustedOrigins: ReadonlySet<string>;
  allowedHosts: readonly string[];
  /**
   * Whether a page on another port of this machine may open `path` as a WebSocket: the sockets
   * that change nothing and carry no content, as their routes declare (`crossPort`, the route
   * table's answer). Every other upgrade is an act.
   */
  crossPort?: (method: string, path: string) => boolean;
}

// Clients send the same few Host values again and again: the first few that pass are remembered
// as their URL up to the path ("http://localhost:4649/"). A URL that starts with one of them passes
// without its host being cut out and judged again; the trailing slash keeps look-alikes such as
// "http://localhost.evil.com/" out.
const maxRemembered = 8;

/**
 * Raises the guards' verdict on one request, or returns when it may proceed. `staticRoute`: the
 * request reached a route of Bun.serve's table, which never upgrades to a WebSocket. `path`: the
 * path the router will route (`routePath`).
 */
export type Guard = (request: Request, method: string, staticRoute: boolean, path: string) => void;

export function createGuard(options: GuardOptions): Guard {
  const trustedPrefixes: string[] = [];
  const trusted = (url: string): boolean => {
    for (const prefix of trustedPrefixes) if (url.startsWith(prefix)) return true;
    return false;
  };
  return (request, method, staticRoute, path) => {
    const url = request.url;
    if (!trusted(url)) {
      const host = hostOf(url);
      const verdict = checkHost(host, options.allowedHosts);
      if (verdict !== "ok") refuseHost(verdict, host);
      if (trustedPrefixes.length < maxRemembered) {
        // A host that passed is not empty, so the path's slash comes after the scheme's.
        const slash = url.indexOf("/", 8);
        if (slash > 0) trustedPrefixes.push(url.slice(0, slash + 1));
      }
    }
    const headers = request.headers;
    // Bun builds the URL from the first Host header and joins repeated ones with ", ": a proxy in
    // front that routes by the last one would disagree with the check above. Static routes too:
    // this is the one header they read.
    const hostHeader = headers.get("host");
    if (hostHeader?.includes(",")) refuseHost("malformed", hostHeader);
    if (method === "GET" || method === "HEAD") {
      // A WebSocket upgrade is a GET and goes through the origin check.
      if (staticRoute) return;
      const upgrade = headers.get("upgrade");
      if (upgrade === null || upgrade.toLowerCase() !== "websocket") return;
    } else if (method === "OPTIONS") {
      return;
    }
    assertTrustedOrigin(request, method, hostOf(url), path, options);
  };
}

function refuseHost(verdict: HostVerdict, host: string | null): never {
  if (verdict === "untrusted") {
    throw new AppError(
      "untrusted_host",
      `Host "${host}" is not allowed. To reach svc by this name, add it to SVC_ALLOWED_HOSTS (comma-separated).`,
    );
  }
  throw new AppError("invalid_host", "The Host header is missing or malformed.");
}

function assertTrustedOrigin(
  request: Request,
  method: string,
  host: string | null,
  path: string,
  options: GuardOptions,
): void {
  const headers = request.headers;
  const origin = headers.get("origin");
  if (origin !== null) {
    if (isSameOrigin(origin, host)) return;
    // Repeated Origin headers arrive joined by ", " and never equal a trusted origin.
    const trust = originTrust(origin, options.trustedOrigins);
    if (trust === undefined) {
      throw new AppError(
        "untrusted_origin",
        `Origin "${origin}" may not make state-changing requests. Trusted: localhost, 127.0.0.1, [::1], app:// and SVC_TRUSTED_ORIGINS.`,
      );
    }
    if (trust === "loopback" && !loopbackMayAct(request, method, path, options)) {
      throw new AppError(
        "cross_origin_request",
        `A request that a browser sends without asking first (a form, beacon, ping, report, no-cors fetch or WebSocket) came from ${origin} and was refused: pages on other ports of this machine may not change svc. Send it from svc's own pages, or list the origin in SVC_TRUSTED_ORIGINS.`,
      );
    }
    return;
  }
  // No Origin: a non-browser client, unless fetch metadata says a browser sent it cross-site.
  const site = headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") {
    throw new AppError("untrusted_origin", `A ${site} browser request without an Origin header was refused.`);
  }
}

/**
 * A page on another port of this machine (every local dev server and web tool) may only make
 * requests svc would have had to approve first, which it never does: in effect only non-browser
 * clients that name such an origin get through. The exceptions are the sockets that change nothing.
 */
function loopbackMayAct(request: Request, method: string, path: string, options: GuardOptions): boolean {
  // A WebSocket has no preflight: only the sockets that change nothing.
  if (method === "GET") return options.crossPort?.(method, path) === true;
  return wasPreflighted(request.headers, method);
}
