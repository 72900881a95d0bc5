import type { RequestInfo } from "./request-info.ts";

/**
 * Hono environment shared by every route: `c.env` is the request's `RequestInfo` (id, logger,
 * Bun server), put there by the request context.
 */
export type AppEnv = { Bindings: RequestInfo };
