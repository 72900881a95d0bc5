import * as v from "valibot";
import { authModes, keyNameSchema, roles } from "./keys.ts";

/** A key as the API shows it: never the key. */
export const keyInfoSchema = v.object({
  name: v.string(),
  role: v.picklist(roles),
  createdAt: v.string(),
  /** Updated at most once a minute. */
  lastUsedAt: v.nullable(v.string()),
  /** Made while keys were off, when anyone who reached svc could make one. */
  madeWhileOff: v.boolean(),
});

export const keyListSchema = v.object({ items: v.array(keyInfoSchema) });

export const createKeySchema = v.object({
  name: keyNameSchema,
  role: v.picklist(roles, "role must be admin or dictate"),
});

export const createdKeySchema = v.object({
  ...keyInfoSchema.entries,
  /** The key: shown this once, stored only as a hash. */
  key: v.string(),
});

export const createDeviceSchema = v.object({
  name: keyNameSchema,
  /** dictate unless asked: a phone or a colleague's laptop dictates; admin changes everything. */
  role: v.optional(v.picklist(roles, "role must be admin or dictate"), "dictate"),
});

export const createdDeviceSchema = v.object({
  ...keyInfoSchema.entries,
  /** The one-time login code, bound to the new key: it works once, until `expiresAt`. */
  code: v.string(),
  /** When the code stops working (ISO 8601), 15 minutes after it was made. */
  expiresAt: v.string(),
  /** The login link's path: open it on svc's address (`/login?code=…`). */
  path: v.string(),
});

export const keyNameParamsSchema = v.object({ name: keyNameSchema });

export const loginSchema = v.pipe(
  v.object({
    key: v.optional(v.pipe(v.string(), v.maxLength(200, "key is at most 200 characters"))),
    code: v.optional(v.pipe(v.string(), v.maxLength(200, "code is at most 200 characters"))),
  }),
  v.check((body) => (body.key === undefined) !== (body.code === undefined), "send either key or code"),
);

export const loggedInSchema = v.object({
  name: v.string(),
  role: v.picklist(roles),
  /**
   * The session's check: the console keeps it in its own page storage (which no other port of the
   * host can read or set) and sends it as X-Svc-Session-Check, or `session_check` on a WebSocket's
   * URL, beside the cookie on every request that changes something or opens a socket.
   */
  check: v.string(),
});

export const sessionSchema = v.object({
  /** The access mode in force. */
  mode: v.picklist(authModes),
  /** `env`: SVC_AUTH decides (the console cannot change it); `stored`: the console's choice. */
  modeSource: v.picklist(["env", "stored"]),
  /** Whether svc listens beyond this machine (HOST is not a loopback address). */
  exposed: v.boolean(),
  /** Whether an admin key exists. */
  hasAdminKey: v.boolean(),
  /** What this client may do: admin, dictate, or null (it needs to log in). */
  role: v.nullable(v.picklist(roles)),
  /** The key it is known by; null for a trusted client or nobody. */
  keyName: v.nullable(v.string()),
  /** trusted: no key needed (auth off, or this machine under keys); bearer or session: a key; none. */
  via: v.picklist(["trusted", "bearer", "session", "none"]),
});

export const accessChangeSchema = v.object({
  mode: v.picklist(authModes, "mode must be off, keys or keys-everywhere"),
});

export const accessChangedSchema = v.object({
  mode: v.picklist(authModes),
  /** Only when turning keys on made the first admin key: shown this once; the console is logged in with it. */
  key: v.optional(v.string()),
  keyName: v.optional(v.string()),
  /** When keys came on: the new session's check (see the login's answer). */
  check: v.optional(v.string()),
  /** When keys came on: admin keys made while keys were off, by anyone who could reach svc then. */
  madeWhileOff: v.optional(v.array(v.string())),
});
