import type { Context } from "hono";
import type { AuthMode } from "../access/keys.ts";
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
import type { AccessService, KeyInfo } from "../access/service.ts";
import { AppError, notFound } from "../errors.ts";
import { peerAddress, sessionCookie } from "../http/access.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import type { AuthThrottle } from "../http/auth-throttle.ts";
import { documentedRoutes } from "../http/documented-routes.ts";
import { requestInfoOf } from "../http/request-info.ts";
import type { OpenSockets } from "../http/sockets.ts";
import type { AppEnv } from "../http/types.ts";
import { readJson } from "../http/validate.ts";
import type { Logger } from "../logger.ts";
import { parseOrThrow } from "../validation.ts";

export interface AccessRoutesDeps {
  access: AccessService;
  throttle: AuthThrottle;
  /** The open WebSockets: a revoked key's are closed. */
  sockets: Pick<OpenSockets, "closeEnded">;
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
});

/** Behind a TLS proxy the cookie must be Secure; svc itself hears plain http. */
function isHttps(c: Context<AppEnv>): boolean {
  if (c.req.url.startsWith("https:")) return true;
  const proto =
    c.req.header("x-forwarded-proto") ?? /proto=([a-z]+)/i.exec(c.req.header("forwarded") ?? "")?.[1];
  return proto?.toLowerCase() === "https";
}

function setSession(c: Context<AppEnv>, token: string, maxAge: number): void {
  const secure = isHttps(c) ? "; Secure" : "";
  c.header(
    "Set-Cookie",
    `${sessionCookie}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`,
  );
}

const sessionDays = 400;

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
        const address = info ? peerAddress(c.req.raw, info) : "local";
        const wait = throttle.waitFor(address);
        if (wait > 0) {
          const seconds = Math.ceil(wait / 1000);
          throw new AppError("too_many_attempts", `Too many wrong keys or codes; retry in ${seconds} s.`, {
            headers: { "Retry-After": String(seconds) },
          });
        }
        const body = await readJson(c, loginSchema);
        const key =
          body.key !== undefined
            ? access.verifyKey(body.key.trim())
            : access.redeemCode((body.code ?? "").trim());
        if (key === null) return refuse(c, address);
        setSession(c, access.createSession(key.id), sessionDays * 86_400);
        (info?.logger ?? deps.logger).info("console login", {
          address,
          key: key.name,
          with: body.key !== undefined ? "key" : "code",
        });
        return c.json({ name: key.name, role: key.role });
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
        const token = /(?:^|;\s*)svc_session=([^;]+)/.exec(c.req.header("cookie") ?? "")?.[1];
        if (token !== undefined) access.endSession(token.trim());
        // The console's sockets opened with this session end with it.
        deps.sockets.closeEnded();
        setSession(c, "", 0);
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
      async (c) => {
        const body = await readJson(c, createKeySchema);
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
        const { name } = parseOrThrow(keyNameParamsSchema, c.req.param(), "invalid_request", "path");
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
    async (c) => {
      const { mode } = await readJson(c, accessChangeSchema);
      if (access.modeSource() === "env") {
        throw new AppError(
          "access_locked",
          `SVC_AUTH=${access.mode()} is set in svc's environment and decides; change it there and restart svc.`,
        );
      }
      const answer: { mode: AuthMode; key?: string; keyName?: string } = { mode };
      if (mode !== "off" && !access.hasAdminKey()) {
        let name = "admin";
        for (let n = 2; access.listKeys().some((key) => key.name === name); n++) name = `admin-${n}`;
        const { key, info } = access.createKey(name, "admin");
        setSession(c, access.createSession(info.id), sessionDays * 86_400);
        answer.key = key;
        answer.keyName = info.name;
      }
      access.setMode(mode);
      requestInfoOf(c)?.logger.info("access mode changed", { mode });
      return c.json(answer);
    },
  );
}
