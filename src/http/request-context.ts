import type { Server } from "bun";
import type { Hono } from "hono";
import type { Logger } from "../logger.ts";
import { type BodyKind, type BodyLimits, createBodyGuard } from "./body-guard.ts";
import { errorResponse } from "./errors.ts";
import { createGuard, type GuardOptions } from "./guards.ts";
import { rawPath } from "./raw-path.ts";
import type { AppEnv } from "./types.ts";

const incomingId = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * What svc knows about a request in flight; Hono hands it to every route as `c.env`. Its id, a
 * logger bound to that id, and the Bun server that received it (absent under `app.request`).
 */
export class RequestInfo {
  readonly requestId: string;
  readonly #base: Logger;
  readonly #env: unknown;
  #logger: Logger | undefined;

  constructor(requestId: string, base: Logger, env: unknown) {
    this.requestId = requestId;
    this.#base = base;
    this.#env = env;
  }

  /** Built on first use: most requests never log anything of their own. */
  get logger(): Logger {
    this.#logger ??= this.#base.child({ requestId: this.requestId });
    return this.#logger;
  }

  /** The Bun server that received the request; absent under `app.request` (tests, CLI). */
  get server(): Server<unknown> | undefined {
    return isBunServer(this.#env) ? this.#env : undefined;
  }
}

/** The request's info, or nothing for a sub-app exercised on its own (without the context). */
export const requestInfoOf = (c: { env: unknown }): RequestInfo | undefined =>
  c.env instanceof RequestInfo ? c.env : undefined;

function isBunServer(value: unknown): value is Server<unknown> {
  return typeof value === "object" && value !== null && "upgrade" in value && "timeout" in value;
}

export interface RequestContextOptions extends GuardOptions {
  logger: Logger;
}

export type Respond = (request: Request, info: RequestInfo) => Response | Promise<Response>;

/**
 * A route Bun.serve answers from its own route table: its path is fixed (the log line needs no
 * path from the URL), and its `respond` builds complete responses with `apiResponder`, which the
 * context sends without editing them. Such a route reads no request header.
 */
export interface StaticRoute {
  readonly path: string;
}

/** Runs one request through the context; `respond` produces its answer. */
export type RequestContext = (
  request: Request,
  env: unknown,
  respond: Respond,
  route?: StaticRoute,
) => Response | Promise<Response>;

/**
 * The security headers every answer leaves with. `routeMayChoose`: a route's own value stands
 * (plugin UI assets are cross-origin: their sandboxed pages have an opaque origin).
 */
const securityHeaders = [
  { name: "X-Content-Type-Options", value: "nosniff", routeMayChoose: false },
  { name: "Referrer-Policy", value: "no-referrer", routeMayChoose: false },
  { name: "Cross-Origin-Resource-Policy", value: "same-origin", routeMayChoose: true },
  { name: "Cache-Control", value: "no-store", routeMayChoose: true },
] as const;

/** Gives a finished response the request's id and the API's security headers. */
export function stampApiHeaders(headers: Headers, requestId: string): void {
  headers.set("X-Request-Id", requestId);
  for (const { name, value, routeMayChoose } of securityHeaders) {
    if (!routeMayChoose || !headers.has(name)) headers.set(name, value);
  }
  // Never let a route or plugin open the API to other origins.
  headers.delete("Access-Control-Allow-Origin");
}

/**
 * Builds responses that already carry the request id and the security headers, for a
 * `StaticRoute`: the context sends them as they are instead of editing their headers afterwards.
 * The headers and init are built once; Bun copies a Headers object into each Response natively.
 */
export function apiResponder(
  contentType: string,
  status = 200,
): (body: string, info: RequestInfo) => Response {
  const headers = new Headers({ "Content-Type": contentType });
  for (const { name, value } of securityHeaders) headers.set(name, value);
  const init = { status, headers };
  return (body, info) => {
    // The shared headers take this request's id just before the Response copies them (nothing
    // runs in between): cheaper than editing the new Response's own headers, which builds them a
    // JS wrapper.
    headers.set("X-Request-Id", info.requestId);
    return new Response(body, init);
  };
}

/**
 * The request context: every request gets an id (echoed in `X-Request-Id`), passes the
 * Host/Origin guards, leaves with the API's security headers and logs one line. It runs around
 * Hono rather than as middleware so that a route that answers at once stays synchronous: a
 * middleware makes every response a promise, which costs Bun a third of its throughput.
 */
export function createRequestContext(options: RequestContextOptions): RequestContext {
  const { logger } = options;
  const guard = createGuard(options);
  const finish = (
    request: Request,
    method: string,
    response: Response,
    info: RequestInfo,
    started: number,
    complete: boolean,
    route: StaticRoute | undefined,
  ): Response => {
    if (!complete) stampApiHeaders(response.headers, info.requestId);
    const path = route === undefined ? rawPath(request.url) : route.path;
    logger.request(info.requestId, method, path, response.status, performance.now() - started);
    return response;
  };
  return (request, env, respond, route) => {
    const started = performance.now();
    const method = request.method;
    // A static route reads no request header (Bun copies them all on the first read): it always
    // issues its own id. Other routes keep the caller's, as a proxy in front may set one.
    const offered = route === undefined ? request.headers.get("x-request-id") : null;
    const info = new RequestInfo(
      offered !== null && incomingId.test(offered) ? offered : crypto.randomUUID(),
      logger,
      env,
    );
    let response: Response | Promise<Response>;
    let complete = route !== undefined;
    try {
      guard(request, method, route !== undefined);
      response = respond(request, info);
    } catch (error) {
      response = errorResponse(error, info);
      complete = false;
    }
    if (response instanceof Promise)
      return response.then((done) => finish(request, method, done, info, started, complete, route));
    return finish(request, method, response, info, started, complete, route);
  };
}

/**
 * Puts the request context around `app.fetch` (which `app.request` also calls), so Bun.serve
 * and tests meet the same guards. Call it before mounting routes: it also adds the body guard,
 * which reads every body within the limits for its path's kind.
 */
export function installRequestContext(
  app: Hono<AppEnv>,
  context: RequestContext,
  body: { limits: BodyLimits; kindOf: (path: string) => BodyKind },
): void {
  app.on(["POST", "PUT", "PATCH", "DELETE"], "*", createBodyGuard(body.limits, body.kindOf));
  const dispatch = app.fetch;
  const respond: Respond = (request, info) => dispatch(request, info);
  app.fetch = (request, env) => context(request, env, respond);
}
