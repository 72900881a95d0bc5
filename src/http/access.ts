import { nobody, type Principal, trustedPrincipal } from "../access/principal.ts";
import type { AccessService, KeyInfo } from "../access/service.ts";
import { AppError } from "../errors.ts";
import type { AuthThrottle } from "./auth-throttle.ts";
import type { RequestInfo } from "./request-info.ts";

/** Who a route is for: anyone (`open`), any key (`dictate`), or admin keys only. */
export type RouteAccess = "open" | "dictate" | "admin";

/** The console's session cookie. */
export const sessionCookie = "svc_session";

const loopbackAddress = /^(?:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;

/** True for a loopback peer address (127.0.0.0/8, ::1, and 127.x mapped into IPv6). */
export const isLoopbackAddress = (address: string): boolean => loopbackAddress.test(address);

export interface AccessGateOptions {
  access: AccessService;
  throttle: AuthThrottle;
  /** Who a request is for, by its method and raw path. */
  routeAccess(method: string, path: string): RouteAccess;
}

/** Decides who the request is from and whether they may make it; sets `info.principal` or throws. */
export type AccessGate = (request: Request, method: string, info: RequestInfo, path: string) => void;

function cookieValue(header: string | null, name: string): string | null {
  if (header === null) return null;
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return null;
}

/** The peer's address as the socket reports it; "local" under app.request (an in-process caller). */
export function peerAddress(request: Request, info: RequestInfo): string {
  return info.server?.requestIP(request)?.address ?? "local";
}

/**
 * Whether a request needs no credential under `keys`: it comes from a loopback peer that no proxy
 * forwarded (a proxy on this machine would
 * otherwise open svc to whoever reaches the proxy).
 */
function trusted(request: Request, address: string): boolean {
  if (address !== "local" && !isLoopbackAddress(address)) return false;
  const headers = request.headers;
  return !headers.has("forwarded") && !headers.has("x-forwarded-for");
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
  const { access, throttle } = options;
  const refuse = (info: RequestInfo, address: string, key: KeyInfo | null, error: AppError): AppError => {
    info.logger.warn("access refused", {
      address,
      ...(key ? { key: key.name } : {}),
      code: error.code,
    });
    return error;
  };
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
    if (mode === "keys" && trusted(request, peerAddress(request, info))) {
      info.principal = trustedPrincipal;
      return;
    }
    const headers = request.headers;
    const authorization = headers.get("authorization");
    let principal: Principal = nobody;
    if (authorization !== null) {
      if (throttle.active()) {
        const address = peerAddress(request, info);
        const wait = throttle.waitFor(address);
        if (wait > 0) throw tooManyAttempts(info, address, wait);
      }
      const presented = bearerToken(authorization);
      const key = presented === undefined ? null : access.verifyKey(presented);
      if (key === null) {
        const address = peerAddress(request, info);
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
      const token = cookieValue(headers.get("cookie"), sessionCookie);
      const key = token === null ? null : access.sessionKey(token);
      if (key !== null && token !== null) principal = { role: key.role, key, via: "session", session: token };
    }
    info.principal = principal;
    // An admin may make any request: the route's role need not be looked up.
    if (principal.role === "admin") return;
    const needed = options.routeAccess(method, path);
    if (needed === "open") return;
    if (principal.role === null) {
      throw refuse(
        info,
        peerAddress(request, info),
        null,
        new AppError(
          "unauthorized",
          "svc requires a key from this address: send Authorization: Bearer svck_…, or log in to the console. An admin creates keys with svc keys create on svc's machine, or on the console's Access screen.",
          { headers: { "WWW-Authenticate": 'Bearer realm="svc"' } },
        ),
      );
    }
    if (needed === "admin") {
      throw refuse(
        info,
        peerAddress(request, info),
        principal.key,
        new AppError(
          "forbidden_role",
          `The key "${principal.key?.name}" has the ${principal.role} role, which may not ${method} this route: it needs an admin key.`,
        ),
      );
    }
  };
}
