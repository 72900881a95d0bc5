// What svc knows about one request, and the headers every answer leaves with. A leaf of http/:
// the request context, the error renderer and Hono's env type all build on it.
import type { Server } from "bun";
import { nobody, type Principal } from "../access/principal.ts";
import type { Logger } from "../logger.ts";

/**
 * What svc knows about a request in flight; Hono hands it to every route as `c.env`. Its id, a
 * logger bound to that id, and the Bun server that received it (absent under `app.request`).
 */
export class RequestInfo {
  readonly requestId: string;
  readonly #base: Logger;
  readonly #env: unknown;
  readonly #request: Request | undefined;
  #logger: Logger | undefined;
  #peer: string | undefined;
  /**
   * Set by a route whose answer is a public static file (a plugin page's asset): it may keep
   * `Access-Control-Allow-Origin: *`. Every other answer has that header removed.
   */
  publicAsset = false;
  /** Who made it (the access gate decides, before any route runs); nobody until then. */
  principal: Principal = nobody;

  constructor(requestId: string, base: Logger, env: unknown, request?: Request) {
    this.requestId = requestId;
    this.#base = base;
    this.#env = env;
    this.#request = request;
  }

  /**
   * The peer's address as the socket reports it, asked of the request as it arrived (Bun knows the
   * socket of that one only, not of the copy the body guard hands on); "local" under app.request.
   */
  get peerAddress(): string {
    if (this.#peer === undefined) {
      const request = this.#request;
      this.#peer = (request && this.server?.requestIP(request)?.address) || "local";
    }
    return this.#peer;
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
export function stampApiHeaders(headers: Headers, info: RequestInfo): void {
  headers.set("X-Request-Id", info.requestId);
  for (const { name, value, routeMayChoose } of securityHeaders) {
    if (!routeMayChoose || !headers.has(name)) headers.set(name, value);
  }
  // Never let a route or plugin open the API to other origins; only public files may be shared.
  if (!info.publicAsset) headers.delete("Access-Control-Allow-Origin");
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
