import { type Context, type Handler, Hono } from "hono";
import type * as v from "valibot";
import { parseOrThrow } from "../validation.ts";
import type { ApiDocs, RouteDoc } from "./api-docs.ts";
import type { EnvelopeName } from "./error-envelopes.ts";
import type { AppEnv } from "./types.ts";
import { mediaTypeOf, readJson, readQuery } from "./validate.ts";

/** A route's API reference entry, less what the registration already says. */
export type RouteSpec = Omit<RouteDoc, "method" | "path" | "tag">;

type Output<S> = S extends v.GenericSchema ? v.InferOutput<S> : never;

/**
 * What a route's spec validates before its handler runs, as Hono's validator targets:
 * `c.req.valid("param")`, `c.req.valid("query")` and `c.req.valid("json")`. A JSON body is
 * missing when the route also takes other `bodyTypes` and one of those came instead.
 */
export type ValidatedInput<S extends RouteSpec> = {
  out: (S["params"] extends v.GenericSchema ? { param: Output<S["params"]> } : object) &
    (S["query"] extends v.GenericSchema ? { query: Output<S["query"]> } : object) &
    (S["readsOwnBody"] extends true
      ? object
      : S["body"] extends v.GenericSchema
        ? {
            json: S["bodyTypes"] extends readonly string[]
              ? Output<S["body"]> | undefined
              : Output<S["body"]>;
          }
        : object);
};

type Register = <S extends RouteSpec>(
  path: string,
  spec: S,
  handler: Handler<AppEnv, string, ValidatedInput<S>>,
) => DocumentedRoutes;

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
 * The handler behind the checks its spec declares: path parameters (400 `invalid_request`), the
 * query (400 `invalid_query`), then a JSON body (415, 400 `invalid_json` or `invalid_request`),
 * each against its schema, in that order, before the handler runs; what passed is the handler's
 * through `c.req.valid(…)`. A route with none of them gets its handler as it is.
 */
function validating(spec: RouteSpec, handler: Handler<AppEnv>): Handler<AppEnv> {
  const { params, query } = spec;
  const body = spec.readsOwnBody ? undefined : spec.body;
  if (!params && !query && !body) return handler;
  // Hono's store is typed `{}`; `ValidatedInput` types what each schema gives.
  const check = (c: Context<AppEnv>) => {
    if (params)
      c.req.addValidatedData(
        "param",
        parseOrThrow(params, c.req.param(), "invalid_request", "path") as object,
      );
    if (query) c.req.addValidatedData("query", readQuery(c, query) as object);
  };
  if (!body) {
    return (c, next) => {
      check(c);
      return handler(c, next);
    };
  }
  // A body of one of the route's other types (a tarball, say) is the handler's to read.
  const others = new Set(spec.bodyTypes ?? []);
  return async (c, next) => {
    check(c);
    if (!others.has(mediaTypeOf(c.req.header("content-type")) ?? ""))
      c.req.addValidatedData("json", (await readJson(c, body)) as object);
    return handler(c, next);
  };
}

/**
 * Declares a resource's routes once each: `routes.get("/:id", { summary, params, responses }, handler)`
 * registers the handler and its API reference entry in one call, with the path written once
 * (relative to `prefix`). The `params`, `query` and `body` the entry documents are validated
 * before the handler runs, which reads them typed with `c.req.valid(…)`, as with Hono's validator.
 * Routes match in the order they are declared. `envelope` gives every error under `prefix` (its
 * routes', and a 404 or 405 beside them) that shape instead of svc's.
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
      app.on(method.toUpperCase(), path, validating(spec, handler as Handler<AppEnv>));
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
