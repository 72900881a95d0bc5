import type { MiddlewareHandler } from "hono";
import type { Logger } from "../logger.ts";
import type { AppEnv } from "./types.ts";

const incomingId = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Gives each request an id (echoed in `X-Request-Id`), a logger bound to it, the API's security
 * headers, and one log line when it ends.
 */
export function requestContext(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const offered = c.req.header("x-request-id");
    const requestId = offered && incomingId.test(offered) ? offered : crypto.randomUUID();
    c.set("requestId", requestId);
    c.set("logger", logger.child({ requestId }));
    await next();
    const headers = c.res.headers;
    headers.set("X-Request-Id", requestId);
    headers.set("X-Content-Type-Options", "nosniff");
    headers.set("Referrer-Policy", "no-referrer");
    // Plugin UI assets set cross-origin: their sandboxed pages have an opaque origin.
    if (!headers.has("Cross-Origin-Resource-Policy")) {
      headers.set("Cross-Origin-Resource-Policy", "same-origin");
    }
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
