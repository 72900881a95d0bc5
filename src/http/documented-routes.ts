import { type Handler, Hono } from "hono";
import type { ApiDocs, RouteDoc } from "./api-docs.ts";
import type { EnvelopeName } from "./error-envelopes.ts";
import type { AppEnv } from "./types.ts";

/** A route's API reference entry, less what the registration already says. */
export type RouteSpec = Omit<RouteDoc, "method" | "path" | "tag">;

type Register = (path: string, spec: RouteSpec, handler: Handler<AppEnv>) => DocumentedRoutes;

/** A resource's routes: mount `app` at `prefix` (app.ts does, through `mount`). */
export interface DocumentedRoutes {
  readonly prefix: string;
  readonly app: Hono<AppEnv>;
  get: Register;
  post: Register;
  put: Register;
  patch: Register;
  delete: Register;
}

/**
 * Declares a resource's routes once each: `routes.get("/:id", { summary, params, responses }, handler)`
 * registers the handler and its API reference entry in one call, with the path written once
 * (relative to `prefix`). Routes match in the order they are declared. `envelope` gives every
 * error under `prefix` (its routes', and a 404 or 405 beside them) that shape instead of svc's.
 */
export function documentedRoutes(
  docs: ApiDocs,
  prefix: string,
  tag: string,
  options: { envelope?: EnvelopeName } = {},
): DocumentedRoutes {
  const app = new Hono<AppEnv>();
  const { envelope } = options;
  if (envelope) docs.claim(prefix, envelope);
  const register =
    (method: RouteDoc["method"]): Register =>
    (path, spec, handler) => {
      const full = path === "/" ? prefix : `${prefix}${path}`;
      docs.add({ ...spec, method, path: full, tag, ...(envelope ? { envelope } : {}) });
      app.on(method.toUpperCase(), path, handler);
      return routes;
    };
  const routes: DocumentedRoutes = {
    prefix,
    app,
    get: register("get"),
    post: register("post"),
    put: register("put"),
    patch: register("patch"),
    delete: register("delete"),
  };
  return routes;
}
