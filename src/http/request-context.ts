import type { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { AppError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { errorResponse } from "./errors.ts";
import { assertRequestAllowed, type GuardOptions } from "./guards.ts";
import type { AppEnv } from "./types.ts";

const incomingId = /^[A-Za-z0-9._:-]{1,64}$/;

/** What svc knows about a request in flight: its id and a logger bound to it. */
export class RequestInfo {
  readonly requestId: string;
  readonly #base: Logger;
  #logger: Logger | undefined;

  constructor(requestId: string, base: Logger) {
    this.requestId = requestId;
    this.#base = base;
  }

  /** Built on first use: most requests never log anything of their own. */
  get logger(): Logger {
    this.#logger ??= this.#base.child({ requestId: this.requestId });
    return this.#logger;
  }
}

const requests = new WeakMap<Request, RequestInfo>();

/** The id and logger of a request that passed through `installRequestContext`. */
export const requestInfo = (request: Request): RequestInfo | undefined => requests.get(request);

export interface RequestContextOptions extends GuardOptions {
  logger: Logger;
  maxBodyBytes: number;
}

/**
 * Wraps `app.fetch` (which `app.request` also calls) so that every request gets an id (echoed in
 * `X-Request-Id`), passes the Host/Origin guards, leaves with the API's security headers and
 * logs one line. Done around Hono rather than as middleware so that a route that answers at once
 * (GET /api/health) stays synchronous: a middleware makes every response a promise, which costs
 * Bun a third of its throughput. Call it before mounting routes: it also adds the body limit.
 */
export function installRequestContext(app: Hono<AppEnv>, options: RequestContextOptions): void {
  const { logger } = options;
  app.on(
    ["POST", "PUT", "PATCH", "DELETE"],
    "*",
    bodyLimit({
      maxSize: options.maxBodyBytes,
      onError: () => {
        throw new AppError(
          413,
          "payload_too_large",
          `The request body is larger than ${options.maxBodyBytes} bytes (SVC_MAX_BODY_SIZE).`,
        );
      },
    }),
  );
  const dispatch = app.fetch;
  const finish = (request: Request, response: Response, info: RequestInfo, started: number): Response => {
    const headers = response.headers;
    headers.set("X-Request-Id", info.requestId);
    headers.set("X-Content-Type-Options", "nosniff");
    headers.set("Referrer-Policy", "no-referrer");
    // Plugin UI assets set cross-origin: their sandboxed pages have an opaque origin.
    if (!headers.has("Cross-Origin-Resource-Policy"))
      headers.set("Cross-Origin-Resource-Policy", "same-origin");
    if (!headers.has("Cache-Control")) headers.set("Cache-Control", "no-store");
    // Never let a route or plugin open the API to other origins.
    headers.delete("Access-Control-Allow-Origin");
    const url = request.url;
    const pathStart = url.indexOf("/", url.indexOf("//") + 2);
    const queryStart = url.indexOf("?", pathStart);
    logger.info("request", {
      requestId: info.requestId,
      method: request.method,
      path: url.slice(pathStart, queryStart < 0 ? undefined : queryStart),
      status: response.status,
      ms: Math.round((performance.now() - started) * 100) / 100,
    });
    return response;
  };
  app.fetch = (request, env, executionCtx) => {
    const started = performance.now();
    const offered = request.headers.get("x-request-id");
    const info = new RequestInfo(offered && incomingId.test(offered) ? offered : crypto.randomUUID(), logger);
    requests.set(request, info);
    let response: Response | Promise<Response>;
    try {
      assertRequestAllowed(request, options);
      response = dispatch(request, env, executionCtx);
    } catch (error) {
      response = errorResponse(error, info);
    }
    if (response instanceof Promise) return response.then((done) => finish(request, done, info, started));
    return finish(request, response, info, started);
  };
}
