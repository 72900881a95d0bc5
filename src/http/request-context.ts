import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { AppError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { renderError } from "./errors.ts";
import { assertRequestAllowed, type GuardOptions } from "./guards.ts";
import type { AppEnv } from "./types.ts";

const incomingId = /^[A-Za-z0-9._:-]{1,64}$/;

export interface RequestContextOptions extends GuardOptions {
  logger: Logger;
  maxBodyBytes: number;
}

/**
 * The one middleware every request passes first: an id (echoed in `X-Request-Id`) and a logger
 * bound to it, the Host/Origin guards, the body limit, the API's security headers, and one log
 * line when it ends. One function rather than four, because it runs on every request.
 */
export function requestContext(options: RequestContextOptions): MiddlewareHandler<AppEnv> {
  const { logger } = options;
  const limitBody = bodyLimit({
    maxSize: options.maxBodyBytes,
    onError: () => {
      throw new AppError(
        413,
        "payload_too_large",
        `The request body is larger than ${options.maxBodyBytes} bytes (SVC_MAX_BODY_SIZE).`,
      );
    },
  });
  return async (c, next) => {
    const started = performance.now();
    const offered = c.req.header("x-request-id");
    const requestId = offered && incomingId.test(offered) ? offered : crypto.randomUUID();
    c.set("requestId", requestId);
    c.set("logger", logger.child({ requestId }));
    try {
      assertRequestAllowed(c.req.raw, options);
      const method = c.req.method;
      if (method === "GET" || method === "HEAD") await next();
      else await limitBody(c, next);
    } catch (error) {
      // Errors from later handlers are rendered where they happen; these are the guards' own.
      c.res = renderError(error, c);
    }
    const headers = c.res.headers;
    headers.set("X-Request-Id", requestId);
    headers.set("X-Content-Type-Options", "nosniff");
    headers.set("Referrer-Policy", "no-referrer");
    // Plugin UI assets set cross-origin: their sandboxed pages have an opaque origin.
    if (!headers.has("Cross-Origin-Resource-Policy"))
      headers.set("Cross-Origin-Resource-Policy", "same-origin");
    if (!headers.has("Cache-Control")) headers.set("Cache-Control", "no-store");
    // Never let a route or plugin open the API to other origins.
    headers.delete("Access-Control-Allow-Origin");
    logger.info("request", {
      requestId,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 100) / 100,
    });
  };
}
