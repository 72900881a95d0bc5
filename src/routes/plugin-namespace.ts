import type { Context, MiddlewareHandler } from "hono";
import { AppError, notFound, reasonOf } from "../errors.ts";
import { sessionCheckHeader, sessionTokens, withoutSessionCookies } from "../http/access.ts";
import { requestInfoOf } from "../http/request-info.ts";
import type { Namespace } from "../http/route-table.ts";
import type { AppEnv } from "../http/types.ts";
import { marksForDictate } from "../plugins/manifest.ts";
import { reservedSlugs, slugPattern } from "../plugins/slug.ts";
import { StepTimeout, withTimeout } from "../plugins/timeout.ts";
import type { LoadedPlugin } from "../plugins/types.ts";
import { pluginPageCsp } from "../plugins/ui-static.ts";

/** A plugin's own routes: `/api/plugins/<slug>/…`, past svc's management routes. */
const prefix = "/api/plugins/";

/** The slug of `/api/plugins/<slug>/…`, when the segment is spelled exactly as a slug. */
export function namespaceSlug(path: string): string | undefined {
  const match = /^\/api\/plugins\/([^/]+)(?:\/|$)/.exec(path);
  const slug = match?.[1];
  return slug !== undefined && slugPattern.test(slug) && !reservedSlugs.has(slug) ? slug : undefined;
}

// The caller's credentials are svc's: the access gate has judged them, and plugin code never sees
// them (a plugin could replay an admin's key or session against svc's own API).
const credentialHeaders = ["authorization", sessionCheckHeader];

/** The request as a plugin gets it: no Authorization, no session check, no session cookie. */
function withoutCredentials(request: Request): Request {
  const headers = request.headers;
  const cookie = headers.get("cookie");
  const hasSession = cookie !== null && sessionTokens(cookie).length > 0;
  if (!hasSession && !credentialHeaders.some((name) => headers.has(name))) return request;
  const kept = new Headers(headers);
  for (const name of credentialHeaders) kept.delete(name);
  const others = cookie === null ? null : withoutSessionCookies(cookie);
  if (others !== null) kept.set("cookie", others);
  else kept.delete("cookie");
  return new Request(request, { headers: kept });
}

/** Runs handlers Hono-style: each answers with a Response or calls `next()` to pass on. */
async function runChain(c: Context<AppEnv>, handlers: readonly MiddlewareHandler<AppEnv>[]) {
  let last = -1;
  const dispatch = async (index: number): Promise<Response | undefined> => {
    if (index <= last) throw new Error("next() was called more than once");
    last = index;
    const handler = handlers[index];
    if (!handler) return undefined;
    let downstream: Response | undefined;
    const result: unknown = await handler(c, async () => {
      downstream = await dispatch(index + 1);
      // As in Hono: the answer becomes c.res, so c.header() after next() changes it.
      if (downstream) c.res = downstream;
    });
    if (result instanceof Response) return result;
    return downstream ? c.res : undefined;
  };
  return dispatch(0);
}

/**
 * `/api/plugins/<slug>/…` → that plugin's middleware and nobody else's. No answer is a 404
 * envelope; a throw is 500 `plugin_failed` naming the plugin; a slow answer is 504. OPTIONS is
 * answered 204 here, with no CORS grant. Admin keys only, unless the plugin's manifest marks the
 * route for dictate keys; a body may be as large as an upload's (whatever a plugin accepts).
 */
export function createPluginNamespace(deps: {
  find(slug: string): LoadedPlugin | undefined;
  readonly timeouts: { readonly requestMs: number };
}): Namespace {
  return {
    prefix,
    path: `${prefix}:slug/*`,
    bodyKind: "upload",
    access(method, path) {
      // A namespace spelled some other way names no plugin: admin, like any route nobody marked.
      const slug = namespaceSlug(path);
      const plugin = slug === undefined ? undefined : deps.find(slug);
      if (!plugin) return "admin";
      const rest = path.slice(`${prefix}${slug}`.length) || "/";
      return marksForDictate(plugin.manifest, method, rest) ? "dictate" : "admin";
    },
    handler: dispatcher(deps),
  };
}

function dispatcher(deps: Parameters<typeof createPluginNamespace>[0]): MiddlewareHandler<AppEnv> {
  return async (c) => {
    // A preflight is svc's to answer, and it grants nothing: plugin code never runs for it.
    if (c.req.method === "OPTIONS") return new Response(null, { status: 204 });
    // The router's path, which the access gate judged: the plugin it names is the one that answers.
    const path = c.req.path;
    const slug = namespaceSlug(path);
    const plugin = slug === undefined ? undefined : deps.find(slug);
    if (!plugin)
      throw notFound(`No route for ${c.req.method} ${path}: no enabled plugin has this namespace.`);
    c.req.raw = withoutCredentials(c.req.raw);
    let response: Response | undefined;
    try {
      response = await withTimeout(runChain(c, plugin.plugin.middleware), deps.timeouts.requestMs);
    } catch (error) {
      const timedOut = error instanceof StepTimeout;
      const message = `plugin "${plugin.name}" failed in middleware: ${reasonOf(error)}`;
      requestInfoOf(c)?.logger.error(message, { plugin: plugin.name, hook: "middleware" });
      throw new AppError(timedOut ? "plugin_timeout" : "plugin_failed", message, {
        details: { plugin: plugin.name },
      });
    }
    if (!response) throw notFound(`Plugin "${plugin.name}" has no route for ${c.req.method} ${path}.`);
    return sandboxed(response);
  };
}

/**
 * Puts every answer from plugin middleware under the same sandbox as plugin pages: an opaque
 * origin, so whatever runs in it is refused by the origin check. Whatever the type: a browser
 * renders more types as documents than any list keeps up with (text/xsl ran script), and the
 * policy is inert on data. Appended, never replacing: browsers enforce every policy a response
 * carries, so a plugin's own policy can only tighten it. The plugin's CORS headers go: only svc
 * shares anything with other origins (a plugin page's public files).
 */
function sandboxed(response: Response): Response {
  const copy = new Response(response.body, response);
  copy.headers.append("Content-Security-Policy", pluginPageCsp);
  const cors = [...copy.headers.keys()].filter((name) => name.startsWith("access-control-"));
  for (const name of cors) copy.headers.delete(name);
  return copy;
}
