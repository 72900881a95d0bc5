import { nobody, type Principal, trustedPrincipal } from "../access/principal.ts";
import type { AccessService, KeyInfo } from "../access/service.ts";
import { AppError } from "../errors.ts";
import type { AuthThrottle } from "./auth-throttle.ts";
import type { ClientAddressing } from "./client-address.ts";
import type { RequestInfo } from "./request-info.ts";

/** Who a route is for: anyone (`open`), any key (`dictate`), or admin keys only. */
export type RouteAccess = "open" | "dictate" | "admin";

/** The console's session cookie over plain http. */
export const sessionCookie = "svc_session";
/** The console's session cookie under https: Secure, Path=/, no Domain, which http pages cannot set. */
export const secureSessionCookie = "__Host-svc_session";
/** The header a console sends its session's check in (its own page storage, which no other port reads). */
export const sessionCheckHeader = "x-svc-session-check";
/** The same check on a WebSocket's URL, which a browser cannot give headers. */
export const sessionCheckParam = "session_check";

const loopbackAddress = /^(?:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;

/** True for a loopback peer address (127.0.0.0/8, ::1, and 127.x mapped into IPv6). */
export const isLoopbackAddress = (address: string): boolean => loopbackAddress.test(address);

export interface AccessGateOptions {
  access: AccessService;
  throttle: AuthThrottle;
  /** The client's address behind a trusted proxy (SVC_TRUSTED_PROXIES), for the throttle and the log. */
  client: ClientAddressing;
  /** Who a request is for, by its method and raw path. */
  routeAccess(method: string, path: string): RouteAccess;
}

/** Decides who the request is from and whether they may make it; sets `info.principal` or throws. */
export type AccessGate = (request: Request, method: string, info: RequestInfo, path: string) => void;

/** Whether one `name=value` part of a Cookie header is svc's session cookie, under either name. */
function isSessionPart(part: string): boolean {
  const at = part.indexOf("=");
  const name = at > 0 ? part.slice(0, at).trim() : "";
  return name === sessionCookie || name === secureSessionCookie;
}

/** The session cookies a request carries, under either name: more than one means one was planted. */
export function sessionTokens(header: string | null): string[] {
  if (header === null) return [];
  return header
    .split(";")
    .filter(isSessionPart)
    .map((part) => part.slice(part.indexOf("=") + 1).trim());
}

/** A Cookie header without svc's session cookies; null when nothing else is left. */
export function withoutSessionCookies(header: string): string | null {
  const others = header.split(";").filter((part) => !isSessionPart(part));
  return others.length > 0 ? others.join(";").trim() : null;
}

/**
 * The check a session's request must carry: from the header, or on a WebSocket's URL; undefined
 * for a GET that opens no socket (a download the browser navigates to cannot send one, and it
 * changes nothing), "" when one was needed and none came.
 */
function sessionCheck(request: Request, method: string): string | undefined {
  const headers = request.headers;
  const header = headers.get(sessionCheckHeader);
  if (header !== null) return header;
  if (method !== "GET" && method !== "HEAD") return "";
  if (headers.get("upgrade") === null) return undefined;
  return new URL(request.url).searchParams.get(sessionCheckParam) ?? "";
}

/**
 * Whether a request needs no credential under `keys`: it comes from a loopback peer that no proxy
 * forwarded (a proxy on this machine would otherwise open svc to whoever reaches the proxy). The
 * peer decides, never a forwarded address: SVC_TRUSTED_PROXIES does not make anyone local.
 */
function trusted(request: Request, peer: string): boolean {
  if (peer !== "local" && !isLoopbackAddress(peer)) return false;
  const headers = request.headers;
  return !headers.has("forwarded") && !headers.has("x-forwarded-for") && !headers.has("x-real-ip");
}

/** The token of `Authorization: Bearer <token>` (the scheme in any case), or undefined. */
function bearerToken(authorization: string): string | undefined {
  // The usual form, exactly as clients send it, is read without a regex or a trimmed copy.
  if (
    authorization.startsWith("Bearer ") &&
    authorization.charCodeAt(7) > 32 &&
    authorization.charCodeAt(authorization.length - 1) > 32
  )
    return authorization.slice(7);
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
}

// One principal per key, made once: a request with a key allocates nothing for it.
const bearers = new WeakMap<KeyInfo, Principal>();
// The key seen last and its principal: a client sends one key request after request, and comparing
// it costs less than a WeakMap lookup.
let lastKey: KeyInfo | null = null;
let lastPrincipal: Principal = nobody;
const bearerPrincipal = (key: KeyInfo): Principal => {
  if (key === lastKey) return lastPrincipal;
  let principal = bearers.get(key);
  if (!principal) {
    principal = { role: key.role, key, via: "bearer" };
    bearers.set(key, principal);
  }
  lastKey = key;
  lastPrincipal = principal;
  return principal;
};

export function createAccessGate(options: AccessGateOptions): AccessGate {
  const { access, throttle, client } = options;
  const refuse = (info: RequestInfo, address: string, key: KeyInfo | null, error: AppError): AppError => {
    info.logger.warn("access refused", {
      address,
      ...(key ? { key: key.name } : {}),
      code: error.code,
    });
    return error;
  };
  /** 401 for a request with no usable credential, logged with the client's address. */
  const unauthorized = (request: Request, info: RequestInfo, message: string): AppError =>
    refuse(
      info,
      client.address(request, info),
      null,
      new AppError("unauthorized", message, { headers: { "WWW-Authenticate": 'Bearer realm="svc"' } }),
    );
  /** The refusal for an address past its wrong keys a minute: retry after `wait` ms. */
  const tooManyAttempts = (info: RequestInfo, address: string, wait: number): AppError => {
    const seconds = Math.ceil(wait / 1000);
    return refuse(
      info,
      address,
      null,
      new AppError("too_many_attempts", `Too many wrong keys from this address; retry in ${seconds} s.`, {
        headers: { "Retry-After": String(seconds) },
      }),
    );
  };
  return (request, method, info, path) => {
    const mode = access.mode();
    if (mode === "off") {
      info.principal = trustedPrincipal;
      return;
    }
    // The peer's address is asked for only when it decides something: a native call per request
    // otherwise. Nothing here allocates for a key sent again (no closure, no copy of the header).
    if (mode === "keys" && trusted(request, info.peerAddress)) {
      info.principal = trustedPrincipal;
      return;
    }
    const headers = request.headers;
    const authorization = headers.get("authorization");
    let principal: Principal = nobody;
    if (authorization !== null) {
      // The key is checked first: a right one works from a throttled address too, so guesses from
      // one host (or every host behind one proxy) never lock out the others.
      const presented = bearerToken(authorization);
      const key = presented === undefined ? null : access.verifyKey(presented);
      if (key === null) {
        const address = client.address(request, info);
        const wait = throttle.waitFor(address);
        if (wait > 0) throw tooManyAttempts(info, address, wait);
        throttle.failed(address);
        throw refuse(
          info,
          address,
          null,
          new AppError(
            "unauthorized",
            "The key is not valid: it was revoked, mistyped or is not an svc key.",
            {
              headers: { "WWW-Authenticate": 'Bearer realm="svc", error="invalid_token"' },
            },
          ),
        );
      }
      principal = bearerPrincipal(key);
    } else {
      const tokens = sessionTokens(headers.get("cookie"));
      if (tokens.length > 1) {
        // Cookies are shared by every port of a host: a page on another port can set one that a
        // browser sends beside svc's own. Neither is taken.
        throw unauthorized(
          request,
          info,
          "This request carried more than one svc session cookie: a page on another port of this host set one. Log in again; if this repeats, clear this site's cookies.",
        );
      }
      const token = tokens[0];
      const key = token === undefined ? null : access.sessionKey(token, sessionCheck(request, method));
      if (key !== null && token !== undefined)
        principal = { role: key.role, key, via: "session", session: token };
    }
    info.principal = principal;
    // An admin may make any request: the route's role need not be looked up.
    if (principal.role === "admin") return;
    const needed = options.routeAccess(method, path);
    if (needed === "open") return;
    if (principal.role === null) {
      throw unauthorized(
        request,
        info,
        "svc requires a key from this address: send Authorization: Bearer svck_…, or log in to the console. An admin creates keys with svc keys create on svc's machine, or on the console's Access screen.",
      );
    }
    if (needed === "admin") {
      throw refuse(
        info,
        client.address(request, info),
        principal.key,
        new AppError(
          "forbidden_role",
          `The key "${principal.key?.name}" has the ${principal.role} role, which may not ${method} this route: it needs an admin key.`,
        ),
      );
    }
  };
}
