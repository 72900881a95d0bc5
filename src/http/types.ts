import type { Logger } from "../logger.ts";

/** Hono environment shared by every route: per-request values set by the core middleware. */
export type AppEnv = {
  Variables: {
    requestId: string;
    logger: Logger;
  };
};
