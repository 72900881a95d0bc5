import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { AppError, permissionDeniedOf, reasonOf, storageFullOf } from "../errors.ts";
import { type Logger, redactKeys } from "../logger.ts";
import { type EnvelopeName, type RenderableError, renderEnvelope } from "./error-envelopes.ts";
import { RequestInfo, requestInfoOf, stampApiHeaders } from "./request-info.ts";
import type { AppEnv } from "./types.ts";

/**
 * Which envelope a request's errors take, by its method and path (the route it reaches) and its
 * `Origin` header (the Freestyle desktop app's own shape, with SVC_FREESTYLE_DESKTOP=1).
 */
export type EnvelopeOf = (method: string, path: string, origin: string | null) => EnvelopeName;

const svcOnly: EnvelopeOf = () => "svc";

function json(
  error: RenderableError,
  envelope: EnvelopeName,
  headers: Record<string, string> = {},
): Response {
  // A key pasted into a path or a value is never echoed back.
  const shown = error.message.includes("svck_") ? { ...error, message: redactKeys(error.message) } : error;
  const { status, body } = renderEnvelope(envelope, shown);
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...headers, "Content-Type": "application/json" },
  });
}

/**
 * The one renderer: every failure leaves the server as `{"error":{code,message,details?}}`, or in
 * OpenAI's shape where the route takes that `envelope` (/v1). `databasePath` names the folder in a
 * disk-full answer (507 `storage_full`).
 */
export function errorResponse(
  error: unknown,
  request?: { requestId: string; logger: Logger },
  databasePath = "",
  envelope: EnvelopeName = "svc",
): Response {
  const known =
    error instanceof AppError ? error : (storageFullOf(error, databasePath) ?? permissionDeniedOf(error));
  if (known) {
    // The operator must act: every write fails until space is freed.
    if (known.code === "storage_full") request?.logger.error("storage full", { error: known });
    if (known.code === "storage_not_writable")
      request?.logger.error("storage not writable", { error: known });
    return json(known, envelope, known.headers);
  }
  if (error instanceof HTTPException && error.status < 500) {
    const message = error.message || "The request could not be processed.";
    return json({ status: error.status, code: "bad_request", message }, envelope);
  }
  const requestId = request?.requestId ?? "unknown";
  request?.logger.error("unhandled error", { error });
  const message = `Internal server error; quote request id ${requestId} when reporting it.`;
  return json({ status: 500, code: "internal", message }, envelope);
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
export function createErrorRenderer(databasePath: string, envelopeOf: EnvelopeOf = svcOnly) {
  return (error: unknown, c: Context<AppEnv>): Response => {
    const info = requestInfoOf(c);
    const envelope = envelopeOf(c.req.method, c.req.path, c.req.header("origin") ?? null);
    if (c.req.raw.signal.aborted) {
      info?.logger.info("client closed the connection before the answer", {
        reason: reasonOf(error),
      });
      const message = "The client closed the connection before the answer.";
      return json({ status: 499, code: "client_closed", message }, envelope);
    }
    return errorResponse(error, info, databasePath, envelope);
  };
}

/** A browser asking for a page (not the API): it gets a page with a way back, not JSON. */
const wantsPage = (path: string, accept: string | undefined): boolean =>
  accept?.includes("text/html") === true && !/^\/(?:api|v1)(?:\/|$)/.test(path);

/** The console's 404 for a mistyped or old address: a sentence and a link home, no script. */
function missingPage(): Response {
  const body =
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">' +
    "<title>Not found · svc</title></head><body><main><h1>No page here</h1>" +
    '<p>This address is not one of svc\'s pages. <a href="/">Go to the console</a>.</p></main></body></html>\n';
  return new Response(body, { status: 404, headers: { "Content-Type": "text/html; charset=utf-8" } });
}

/**
 * Hono's notFound: 405 `method_not_allowed` with an Allow header when the path has routes for
 * other methods, else 404 `not_found`.
 */
export function notFoundRenderer(
  allowedMethods: (path: string) => string[],
  envelopeOf: EnvelopeOf = svcOnly,
) {
  return (c: Context<AppEnv>): Response => {
    const { method, path } = c.req;
    const envelope = envelopeOf(method, path, c.req.header("origin") ?? null);
    const allowed = allowedMethods(path);
    if (allowed.length === 0) {
      if (method === "GET" && wantsPage(path, c.req.header("accept"))) return missingPage();
      return json({ status: 404, code: "not_found", message: `No route for ${method} ${path}.` }, envelope);
    }
    const list = allowed.join(", ");
    const message = `${path} does not answer ${method}; it answers ${list}.`;
    return json({ status: 405, code: "method_not_allowed", message, details: { allowed } }, envelope, {
      Allow: list,
    });
  };
}
