import type { Context } from "hono";
import type * as v from "valibot";
import { nobody } from "../access/principal.ts";
import {
  accessChangedSchema,
  accessChangeSchema,
  createdKeySchema,
  createKeySchema,
  keyListSchema,
  keyNameParamsSchema,
  loggedInSchema,
  loginSchema,
  sessionSchema,
} from "../access/schemas.ts";
import {
  type AccessService,
  defaultSessionBounds,
  type KeyInfo,
  type NewSession,
} from "../access/service.ts";
import { AppError, notFound } from "../errors.ts";
import { secureSessionCookie, sessionCookie, sessionTokens } from "../http/access.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import type { AuthThrottle } from "../http/auth-throttle.ts";
import type { ClientAddressing } from "../http/client-address.ts";
import { documentedRoutes } from "../http/documented-routes.ts";
import { requestInfoOf } from "../http/request-info.ts";
import type { OpenSockets } from "../http/sockets.ts";
import type { AppEnv } from "../http/types.ts";
import type { Logger } from "../logger.ts";

export interface AccessRoutesDeps {
  access: AccessService;
  throttle: AuthThrottle;
  /** The client's address (behind SVC_TRUSTED_PROXIES) and whether it came over https. */
  client: ClientAddressing;
  /** The open WebSockets: a revoked key's are closed, and keyless ones when keys come on. */
  sockets: Pick<OpenSockets, "closeEnded" | "closeKeyless">;
  /** How long a session lives (its cookie's Max-Age); default 180 days. */
  sessionMaxMs?: number;
  /** Whether svc listens beyond loopback (the console's banner). */
  exposed: boolean;
  docs: ApiDocs;
  logger: Logger;
}

const view = (key: KeyInfo) => ({
  name: key.name,
  role: key.role,
  createdAt: key.createdAt,
  lastUsedAt: key.lastUsedAt,
  madeWhileOff: key.madeWhileOff,
});

/**
 * Sets the console's session cookie, or with `null` clears it under both its names. Under https
 * (at svc, or behind a proxy that says so) it is `__Host-svc_session`: Secure, Path=/ and no
 * Domain, so no http page and no subdomain can set one in its place.
 */
function setSession(c: Context<AppEnv>, deps: AccessRoutesDeps, session: NewSession | null): void {
  const attributes = "Path=/; HttpOnly; SameSite=Strict";
  if (session === null) {
    c.header("Set-Cookie", `${sessionCookie}=; ${attributes}; Max-Age=0`, { append: true });
    c.header("Set-Cookie", `${secureSessionCookie}=; ${attributes}; Max-Age=0; Secure`, { append: true });
    return;
  }
  const maxAge = Math.floor((deps.sessionMaxMs ?? defaultSessionBounds.maxMs) / 1000);
  const cookie = deps.client.https(c.req.raw)
    ? `${secureSessionCookie}=${session.token}; ${attributes}; Max-Age=${maxAge}; Secure`
    : `${sessionCookie}=${session.token}; ${attributes}; Max-Age=${maxAge}`;
  c.header("Set-Cookie", cookie, { append: true });
}

/**
 * `/api/auth` (the console's login, open to all) and, for admins, `/api/keys` and `/api/access`.
 */
export function createAuthRoutes(deps: AccessRoutesDeps) {
  const { access, throttle } = deps;
  const refuse = (c: Context<AppEnv>, address: string): never => {
    throttle.failed(address);
    (requestInfoOf(c)?.logger ?? deps.logger).warn("access refused", {
      address,
      code: "unauthorized",
      route: "login",
    });
    throw new AppError("unauthorized", "The key or code is not valid (a code works once, for 15 minutes).", {
      headers: { "WWW-Authenticate": 'Bearer realm="svc"' },
    });
  };
  return documentedRoutes(deps.docs, "/api/auth", "Access")
    .post(
      "/login",
      {
        summary: "Log in to the console with a key or a one-time code",
        access: "open",
        description:
          "Sets the console's session cookie (svc_session: HttpOnly, SameSite=Strict, Secure under https), which every route and WebSocket then accepts in place of a key. A one-time code (from the start log's login link) works once, for 15 minutes. Wrong keys and codes count toward SVC_AUTH_MAX_FAILURES.",
        body: loginSchema,
        responses: { 200: { description: "Logged in", schema: loggedInSchema } },
        errors: ["unauthorized", "too_many_attempts"],
      },
      async (c) => {
        const info = requestInfoOf(c);
        const address = info ? deps.client.address(c.req.raw, info) : "local";
        const body = c.req.valid("json");
        // The key or code is checked before the throttle refuses: the right one always logs in,
        // whatever another host (or this one) guessed before.
        const key =
          body.key !== undefined
            ? access.verifyKey(body.key.trim())
            : access.redeemCode((body.code ?? "").trim());
        if (key === null) {
          const wait = throttle.waitFor(address);
          if (wait > 0) {
            const seconds = Math.ceil(wait / 1000);
            throw new AppError("too_many_attempts", `Too many wrong keys or codes; retry in ${seconds} s.`, {
              headers: { "Retry-After": String(seconds) },
            });
          }
          return refuse(c, address);
        }
        const session = access.createSession(key.id);
        setSession(c, deps, session);
        (info?.logger ?? deps.logger).info("console login", {
          address,
          key: key.name,
          with: body.key !== undefined ? "key" : "code",
        });
        return c.json({ name: key.name, role: key.role, check: session.check });
      },
    )
    .post(
      "/logout",
      {
        summary: "End the console's session",
        access: "open",
        responses: { 204: { description: "Logged out (also when there was no session)" } },
      },
      (c) => {
        for (const token of sessionTokens(c.req.header("cookie") ?? null)) access.endSession(token);
        // The console's sockets opened with this session end with it.
        deps.sockets.closeEnded();
        setSession(c, deps, null);
        return c.body(null, 204);
      },
    )
    .get(
      "/session",
      {
        summary: "Who this client is, and whether keys are required",
        access: "open",
        responses: { 200: { description: "The client's access", schema: sessionSchema } },
      },
      (c) => {
        const principal = requestInfoOf(c)?.principal ?? nobody;
        return c.json({
          mode: access.mode(),
          modeSource: access.modeSource(),
          exposed: deps.exposed,
          hasAdminKey: access.hasAdminKey(),
          role: principal.role,
          keyName: principal.key?.name ?? null,
          via: principal.via,
        });
      },
    );
}

/** `/api/keys`: an admin makes, lists and revokes keys. */
export function createKeysRoutes(deps: AccessRoutesDeps) {
  const { access } = deps;
  return documentedRoutes(deps.docs, "/api/keys", "Access")
    .get(
      "/",
      {
        summary: "The keys: names, roles, created and last used (never a key)",
        responses: { 200: { description: "The keys", schema: keyListSchema } },
      },
      (c) => c.json({ items: access.listKeys().map(view) }),
    )
    .post(
      "/",
      {
        summary: "Make a key (the answer shows it once)",
        body: createKeySchema,
        responses: { 201: { description: "The key, shown this once", schema: createdKeySchema } },
        errors: ["conflict"],
      },
      (c) => {
        const body = c.req.valid("json");
        const { key, info } = access.createKey(body.name, body.role);
        requestInfoOf(c)?.logger.info("key created", { key: info.name, role: info.role });
        return c.json({ ...view(info), key }, 201);
      },
    )
    .delete(
      "/:name",
      {
        summary: "Revoke a key: it and the console sessions made with it stop working at once",
        params: keyNameParamsSchema,
        responses: { 204: { description: "Revoked" } },
        errors: ["last_admin_key"],
      },
      (c) => {
        const { name } = c.req.valid("param");
        const target = access.listKeys().find((key) => key.name === name);
        if (!target) throw notFound(`No key is named "${name}".`);
        const admins = access.listKeys().filter((key) => key.role === "admin").length;
        if (target.role === "admin" && admins === 1 && access.mode() !== "off") {
          throw new AppError(
            "last_admin_key",
            `"${name}" is the last admin key and keys are required: make another admin key first, or turn keys off.`,
          );
        }
        access.revokeKey(name);
        deps.sockets.closeEnded();
        requestInfoOf(c)?.logger.info("key revoked", { key: name });
        return c.body(null, 204);
      },
    );
}

/** `/api/access`: an admin turns keys on or off (unless SVC_AUTH decides). */
export function createAccessModeRoutes(deps: AccessRoutesDeps) {
  const { access } = deps;
  return documentedRoutes(deps.docs, "/api/access", "Access").put(
    "/",
    {
      summary: "Require keys from other devices (keys), from every client (keys-everywhere), or not (off)",
      description:
        "Stored in the database; SVC_AUTH, when set, decides instead (409 access_locked). Turning keys on with no admin key makes one, answers it this once and logs this client in with it.",
      body: accessChangeSchema,
      responses: { 200: { description: "The mode in force", schema: accessChangedSchema } },
      errors: ["access_locked"],
    },
    (c) => {
      const { mode } = c.req.valid("json");
      if (access.modeSource() === "env") {
        throw new AppError(
          "access_locked",
          `SVC_AUTH=${access.mode()} is set in svc's environment and decides; change it there and restart svc.`,
        );
      }
      const info = requestInfoOf(c);
      const before = access.mode();
      const answer: v.InferOutput<typeof accessChangedSchema> = { mode };
      access.setMode(mode);
      if (mode !== "off" && before === "off") {
        // What keys-off let anyone do ends: their sessions, and sockets opened with no key.
        access.endSessionsMadeWhileOff();
        deps.sockets.closeKeyless();
        const made = access.listKeys().filter((key) => key.role === "admin" && key.madeWhileOff);
        if (made.length > 0) {
          answer.madeWhileOff = made.map((key) => key.name);
          info?.logger.warn("admin keys were made while keys were off", { keys: answer.madeWhileOff });
        }
      }
      // The caller was admin a moment ago, with no key of its own (keys off, or this machine under
      // keys): it stays logged in, with a session of an admin key made under keys, else a new one.
      if (mode !== "off" && info?.principal.via === "trusted") {
        let owner = access.listKeys().find((key) => key.role === "admin" && !key.madeWhileOff);
        if (!owner) {
          let name = "admin";
          for (let n = 2; access.listKeys().some((key) => key.name === name); n++) name = `admin-${n}`;
          const made = access.createKey(name, "admin");
          owner = made.info;
          answer.key = made.key;
          answer.keyName = made.info.name;
        }
        const session = access.createSession(owner.id);
        setSession(c, deps, session);
        answer.check = session.check;
      }
      info?.logger.info("access mode changed", { mode });
      return c.json(answer);
    },
  );
}
