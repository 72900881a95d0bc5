import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { AppError, permissionDeniedOf, reasonOf, storageFullOf } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { RequestInfo, requestInfoOf, stampApiHeaders } from "./request-info.ts";
import type { AppEnv } from "./types.ts";

export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

export function errorBody(code: string, message: string, details?: unknown): ErrorBody {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

const json = (body: ErrorBody, status: number, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { ...headers, "Content-Type": "application/json" } });

/**
 * The one renderer: every failure leaves the server as `{"error":{code,message,details?}}`.
 * `databasePath` names the folder in a disk-full answer (507 `storage_full`).
 */
export function errorResponse(
  error: unknown,
  request?: { requestId: string; logger: Logger },
  databasePath = "",
): Response {
  const known =
    error instanceof AppError ? error : (storageFullOf(error, databasePath) ?? permissionDeniedOf(error));
  if (known) {
    // The operator must act: every write fails until space is freed.
    if (known.code === "storage_full") request?.logger.error("storage full", { error: known });
    if (known.code === "storage_not_writable")
      request?.logger.error("storage not writable", { error: known });
    return json(errorBody(known.code, known.message, known.details), known.status, known.headers);
  }
  if (error instanceof HTTPException && error.status < 500) {
    return json(
      errorBody("bad_request", error.message || "The request could not be processed."),
      error.status,
    );
  }
  const requestId = request?.requestId ?? "unknown";
  request?.logger.error("unhandled error", { error });
  return json(
    errorBody("internal", `Internal server error; quote request id ${requestId} when reporting it.`),
    500,
  );
}

/**
 * Bun.serve's `error` handler, for an error that escapes the request context (none is known to):
 * the same envelope and headers, logged under a fresh id, instead of Bun's HTML error page.
 */
export function lastResortError(logger: Logger, databasePath = ""): (error: Error) => Response {
  return (error) => {
    const info = new RequestInfo(crypto.randomUUID(), logger, undefined);
    const response = errorResponse(error, info, databasePath);
    stampApiHeaders(response.headers, info);
    return response;
  };
}

/**
 * Hono's onError: the same renderer, with the request's id and logger. A request whose client
 * hung up (mid-upload, say) failed because of the client, not svc: it is logged as such at info
 * level with nginx's 499, and nobody is there to read the answer.
 */
export function createErrorRenderer(databasePath: string) {
  return (error: unknown, c: Context<AppEnv>): Response => {
    const info = requestInfoOf(c);
    if (c.req.raw.signal.aborted) {
      info?.logger.info("client closed the connection before the answer", {
        reason: reasonOf(error),
      });
      return json(errorBody("client_closed", "The client closed the connection before the answer."), 499);
    }
    return errorResponse(error, info, databasePath);
  };
}

/**
 * Hono's notFound: 405 `method_not_allowed` with an Allow header when the path has routes for
 * other methods, else 404 `not_found`.
 */
export function notFoundRenderer(allowedMethods: (path: string) => string[]) {
  return (c: Context<AppEnv>): Response => {
    const { method, path } = c.req;
    const allowed = allowedMethods(path);
    if (allowed.length === 0) return c.json(errorBody("not_found", `No route for ${method} ${path}.`), 404);
    const list = allowed.join(", ");
    c.header("Allow", list);
    return c.json(
      errorBody("method_not_allowed", `${path} does not answer ${method}; it answers ${list}.`, {
        allowed,
      }),
      405,
    );
  };
}
