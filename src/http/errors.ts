import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { AppError } from "../errors.ts";
import type { AppEnv } from "./types.ts";

export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

export function errorBody(code: string, message: string, details?: unknown): ErrorBody {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

/** The one renderer: every failure leaves the server as `{"error":{code,message,details?}}`. */
export function renderError(error: unknown, c: Context<AppEnv>): Response {
  if (error instanceof AppError) {
    for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
    return c.json(errorBody(error.code, error.message, error.details), error.status);
  }
  if (error instanceof HTTPException && error.status < 500) {
    return c.json(
      errorBody("bad_request", error.message || "The request could not be processed."),
      error.status,
    );
  }
  c.get("logger")?.error("unhandled error", { requestId: c.get("requestId"), error });
  return c.json(
    errorBody(
      "internal",
      `Internal server error; quote request id ${c.get("requestId") ?? "unknown"} when reporting it.`,
    ),
    500,
  );
}

export function renderNotFound(c: Context<AppEnv>): Response {
  return c.json(errorBody("not_found", `No route for ${c.req.method} ${c.req.path}.`), 404);
}
