import type { MiddlewareHandler } from "hono";
import type { RouteAccess } from "./access.ts";
import type { ApiDocs, RouteDoc } from "./api-docs.ts";
import type { BodyKind } from "./body-guard.ts";
import type { EnvelopeName } from "./error-envelopes.ts";
import type { AppEnv } from "./types.ts";

/**
 * Paths svc serves without documenting each one: every method and path under `prefix` goes to
 * `handler`, and the namespace itself says who may call them (a plugin's own routes).
 */
export interface Namespace {
  /** Every path that starts with it is the namespace's: `/api/plugins/`. */
  readonly prefix: string;
  /** The router's pattern for its paths: `/api/plugins/:slug/*`. */
  readonly path: string;
  /** The body limit every request under it gets. */
  readonly bodyKind: BodyKind;
  /** Who may call `method path`; `path` is the router's (`routePath`). */
  access(method: string, path: string): RouteAccess;
  readonly handler: MiddlewareHandler<AppEnv>;
}

/**
 * What the request context asks of the route a request reaches, before the route runs: each
 * answer is its `documentedRoutes` declaration's, so a route's facts are written once, beside its
 * handler. `path` is always the router's own (`routePath`, the app's getPath), so no spelling of
 * one route passes as another.
 */
export interface RouteTable {
  /**
   * Who it is for (SVC_AUTH): its route's `access` (admin when it names none); under a namespace,
   * the namespace's answer; any key for an unknown API path (which answers 404 or 405); anyone for
   * the console's pages and a preflight.
   */
  access(method: string, path: string): RouteAccess;
  /** Its body limit: its route's `bodyKind`, its namespace's, else JSON's. */
  bodyKind(method: string, path: string): BodyKind;
  /** The shape its errors take: its route's envelope, else the one its prefix claims, else svc's. */
  envelope(method: string, path: string): EnvelopeName;
  /** Whether a page on another port of this machine may open it as a WebSocket (`crossPort`). */
  crossPort(method: string, path: string): boolean;
}

/** The console's document and files: open to all (they hold no data); the API behind them is not. */
const isApiPath = (path: string) =>
  path.startsWith("/api/") || path === "/api" || path.startsWith("/v1/") || path === "/v1";

/** How many paths the table remembers the route of before it starts again. */
const maxRemembered = 4096;

export function createRouteTable(docs: ApiDocs, namespaces: readonly Namespace[] = []): RouteTable {
  // By method, then path: no key string is built per request.
  const known = new Map<string, Map<string, RouteDoc>>();
  let size = 0;
  // The route found last: a client repeats its request, and comparing two strings costs less than
  // hashing the path again for the maps.
  let lastMethod = "";
  let lastPath = "";
  let lastRoute: RouteDoc | undefined;
  const remember = (method: string, path: string, route: RouteDoc): RouteDoc => {
    lastMethod = method;
    lastPath = path;
    lastRoute = route;
    return route;
  };
  /** The documented route `method path` reaches (HEAD reaches GET's), ignoring a trailing slash. */
  const declared = (method: string, path: string): RouteDoc | undefined => {
    if (path === lastPath && method === lastMethod) return lastRoute;
    const routed = method === "HEAD" ? "GET" : method;
    let paths = known.get(routed);
    const cached = paths?.get(path);
    if (cached !== undefined) return remember(method, path, cached);
    const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
    const route = docs.routeAt(routed, trimmed);
    if (!route) return undefined;
    if (size >= maxRemembered) {
      known.clear();
      size = 0;
      paths = undefined;
    }
    if (!paths) {
      paths = new Map();
      known.set(routed, paths);
    }
    paths.set(path, route);
    size += 1;
    return remember(method, path, route);
  };
  const namespaceOf = (path: string) => namespaces.find(({ prefix }) => path.startsWith(prefix));
  return {
    access(method, path) {
      if (method === "OPTIONS" || !isApiPath(path)) return "open";
      const route = declared(method, path);
      if (route) return route.access ?? "admin";
      return namespaceOf(path)?.access(method, path) ?? "dictate";
    },
    bodyKind(method, path) {
      const route = declared(method, path);
      if (route) return route.bodyKind ?? "json";
      // `/api/plugins/` itself is no plugin's.
      const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
      return namespaceOf(trimmed)?.bodyKind ?? "json";
    },
    envelope(method, path) {
      const route = declared(method, path);
      if (route) return route.envelope ?? "svc";
      return docs.claimedAt(path) ?? "svc";
    },
    crossPort: (method, path) => declared(method, path)?.crossPort === true,
  };
}
