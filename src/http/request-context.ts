import type { Hono } from "hono";
import { AppError } from "../errors.ts";
import { type Logger, redactKeys } from "../logger.ts";
import type { AccessGate } from "./access.ts";
import { type BodyKind, type BodyLimits, createBodyGuard } from "./body-guard.ts";
import { type EnvelopeOf, errorResponse } from "./errors.ts";
import { createGuard, type GuardOptions } from "./guards.ts";
import { rawPath, routePath } from "./raw-path.ts";
import { RequestInfo, stampApiHeaders } from "./request-info.ts";
import type { AppEnv } from "./types.ts";

const incomingId = /^[A-Za-z0-9._:-]{1,64}$/;

const nonCanonical = new AppError(
  "non_canonical_path",
  "The path percent-encodes a letter, digit or one of -._~, or holds a malformed escape: write those characters as they are.",
);

export interface RequestContextOptions extends GuardOptions {
  logger: Logger;
  /** The envelope a guard's refusal takes, by the route the request would reach; default svc's. */
  envelopeOf?: EnvelopeOf;
  /** Who may make the request (SVC_AUTH); static routes (GET /api/health) are open to all. */
  access?: AccessGate;
  /** The origins granted cross-origin reads, if any (SVC_FREESTYLE_DESKTOP=1, src/desktop/cors.ts). */
  cors?: CrossOrigin;
}

/** CORS for a few named origins: svc grants none unless the Freestyle desktop app's dialect is on. */
export interface CrossOrigin {
  /** A granted origin's preflight, answered before any key is asked for; null for any other request. */
  preflight(request: Request, method: string): Response | null;
  /** Adds the headers that let a granted origin read the answer (after the API's own headers). */
  grant(request: Request, headers: Headers): void;
}

export type Respond = (request: Request, info: RequestInfo) => Response | Promise<Response>;

/**
 * A route Bun.serve answers from its own route table: its path is fixed (the log line needs no
 * path from the URL), and its `respond` builds complete responses with `apiResponder`, which the
 * context sends without editing them. Such a route reads no request header of its own: only the
 * guard's check for a repeated Host.
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
 * The request context: every request gets an id (echoed in `X-Request-Id`), passes the
 * Host/Origin guards, leaves with the API's security headers and logs one line. It runs around
 * Hono rather than as middleware so that a route that answers at once stays synchronous: a
 * middleware makes every response a promise, which costs Bun a third of its throughput.
 */
export function createRequestContext(options: RequestContextOptions): RequestContext {
  const { logger, access, cors } = options;
  const guard = createGuard(options);
  const finish = (
    method: string,
    response: Response,
    info: RequestInfo,
    started: number,
    complete: boolean,
    path: string,
    request: Request,
  ): Response => {
    if (!complete) stampApiHeaders(response.headers, info);
    // After the API's headers, which remove any Access-Control-Allow-Origin a route set.
    cors?.grant(request, response.headers);
    // A container's health check calls every 30 s: 2,880 lines a day that say nothing when it passes.
    const quiet = path === "/api/health" && response.status === 200 ? "debug" : undefined;
    logger.request(info.requestId, method, path, response.status, performance.now() - started, quiet);
    return response;
  };
  return (request, env, respond, route) => {
    const started = performance.now();
    const method = request.method;
    // A static route reads no header beyond the guard's Host (every read costs): it always issues
    // its own id. Other routes keep the caller's, as a proxy in front may set one.
    const offered = route === undefined ? request.headers.get("x-request-id") : null;
    const info = new RequestInfo(
      offered !== null && incomingId.test(offered) ? offered : crypto.randomUUID(),
      logger,
      env,
      request,
    );
    // Read once: the guards, the access gate and the log line need it (reading the URL costs).
    const raw = route === undefined ? rawPath(request.url) : route.path;
    // The path the router routes (the app's getPath is the same function): the gate decides on
    // exactly this one, and a second spelling of it is refused before either sees it.
    const path = route === undefined ? routePath(raw) : raw;
    let response: Response | Promise<Response>;
    let complete = route !== undefined;
    try {
      if (path === null) throw nonCanonical;
      guard(request, method, route !== undefined, path);
      // A CORS preflight (SVC_FREESTYLE_DESKTOP) is answered before any key is asked for.
      const preflight = cors?.preflight(request, method) ?? null;
      if (preflight !== null) {
        response = preflight;
      } else {
        if (route === undefined) access?.(request, method, info, path);
        response = respond(request, info);
      }
    } catch (error) {
      const envelope = options.envelopeOf?.(method, path ?? raw, request.headers.get("origin")) ?? "svc";
      response = errorResponse(error, info, "", envelope);
      complete = false;
    }
    // A key pasted into a path is never written to the log.
    const logged = raw.includes("svck_") ? redactKeys(raw) : raw;
    if (response instanceof Promise)
      return response.then((done) => finish(method, done, info, started, complete, logged, request));
    return finish(method, response, info, started, complete, logged, request);
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
  body: { limits: BodyLimits; kindOf: (method: string, path: string) => BodyKind },
): void {
  app.on(["POST", "PUT", "PATCH", "DELETE"], "*", createBodyGuard(body.limits, body.kindOf));
  const dispatch = app.fetch;
  const respond: Respond = (request, info) => dispatch(request, info);
  app.fetch = (request, env) => context(request, env, respond);
}
