import type { AccessKeyRow, AccessRepo } from "../db/access-repo.ts";
import { AppError, conflict, notFound } from "../errors.ts";
import {
  type AuthMode,
  generateKey,
  isKeyShaped,
  keyBytes,
  keyIdOf,
  keyMatches,
  type Role,
  randomToken,
  sameKey,
  sha256,
} from "./keys.ts";

/** A key as svc shows it: never the key itself. */
export interface KeyInfo {
  id: string;
  name: string;
  role: Role;
  createdAt: string;
  lastUsedAt: string | null;
}

/** How long a one-time login code works. */
export const loginCodeTtlMs = 15 * 60 * 1000;
// last_used_at is written at most this often per key: a write per request would cost the API its speed.
const touchEveryMs = 60_000;
// A key revoked by `svc keys revoke` beside a running server stops working within this.
const recheckEveryMs = 1000;

export interface AccessService {
  /** The mode in force: SVC_AUTH when set, else the stored choice, else off. */
  mode(): AuthMode;
  /** Where the mode comes from: `env` (SVC_AUTH, which the console cannot change) or `stored`. */
  modeSource(): "env" | "stored";
  /** Stores the mode; refused while SVC_AUTH decides. */
  setMode(mode: AuthMode): void;
  hasAdminKey(): boolean;
  /** A new key: the key is returned here once and never again. */
  createKey(name: string, role: Role): { key: string; info: KeyInfo };
  listKeys(): KeyInfo[];
  /** Removes the key, its sessions and its login codes; false when no key has the name. */
  revokeKey(name: string): boolean;
  /** The key a client presented, or null when it is not one of svc's. */
  verifyKey(presented: string): KeyInfo | null;
  createSession(keyId: string): string;
  sessionKey(token: string): KeyInfo | null;
  endSession(token: string): void;
  /**
   * Why a credential an open socket was made with has ended since, or null while it holds: its key
   * was revoked (here, or by `svc keys revoke` beside the server), or its session logged out.
   */
  credentialEnded(keyId: string, session: string | null): string | null;
  /** A code that logs in once as `keyId` within 15 minutes. */
  createLoginCode(keyId: string): string;
  redeemCode(code: string): KeyInfo | null;
  /**
   * Keys are required and no admin key exists: makes one (its key is never shown) and a login
   * code for it, for the start log's link. Null when nothing needed doing.
   */
  firstRun(): { code: string; key: KeyInfo } | null;
}

const infoOf = (row: AccessKeyRow): KeyInfo => ({
  id: row.id,
  name: row.name,
  role: row.role === "admin" ? "admin" : "dictate",
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
});

interface Cached {
  info: KeyInfo;
  hash: Uint8Array;
  touchedAt: number;
  /** The key's bytes once a client presented it and it matched the hash (memory only). */
  known?: Uint8Array;
}

export function createAccessService(deps: {
  repo: AccessRepo;
  /** SVC_AUTH, or null when unset. */
  envMode: AuthMode | null;
  now?: () => number;
}): AccessService {
  const { repo } = deps;
  const now = deps.now ?? Date.now;
  let keys = new Map<string, Cached>();
  const sessions = new Map<string, string>();
  let version = -1;
  let checkedAt = -Infinity;
  /**
   * The key verified last: a client sends the same key request after request, and comparing it
   * with this one (in constant time) skips finding its record. Forgotten when the cache reloads or
   * a key is revoked.
   */
  let recent: Cached | undefined;
  let storedMode: AuthMode | null = null;

  function load(): void {
    const next = new Map<string, Cached>();
    for (const row of repo.keys()) {
      next.set(row.id, { info: infoOf(row), hash: row.hash, touchedAt: keys.get(row.id)?.touchedAt ?? 0 });
    }
    keys = next;
    recent = undefined;
    for (const [token, keyId] of sessions) if (!keys.has(keyId)) sessions.delete(token);
    const stored = repo.state("auth_mode");
    storedMode = stored === "keys" || stored === "keys-everywhere" || stored === "off" ? stored : null;
  }

  /**
   * The cache, reloaded when another connection (the CLI) changed the database; `now` asks at once
   * (a key the cache does not know may have just been made beside the server).
   */
  function fresh(force = false, at = now()): Map<string, Cached> {
    if (force || at - checkedAt >= recheckEveryMs) {
      checkedAt = at;
      const current = repo.dataVersion();
      if (current !== version) {
        version = current;
        load();
      }
    }
    return keys;
  }

  function used(cached: Cached, at = now()): KeyInfo {
    if (at - cached.touchedAt >= touchEveryMs) {
      cached.touchedAt = at;
      const stamp = new Date(at).toISOString();
      cached.info.lastUsedAt = stamp;
      repo.touchKey(cached.info.id, stamp);
    }
    return cached.info;
  }

  /** The key a console session is for, remembered once read; null once it ended or its key went. */
  function sessionOf(token: string): Cached | null {
    const current = fresh();
    let keyId = sessions.get(token);
    if (keyId === undefined) {
      keyId = repo.sessionKey(sha256(token)) ?? undefined;
      if (keyId === undefined) return null;
      sessions.set(token, keyId);
    }
    const cached = current.get(keyId);
    if (!cached) {
      sessions.delete(token);
      return null;
    }
    return cached;
  }

  const byName = (name: string) => [...fresh().values()].find((cached) => cached.info.name === name);

  const service: AccessService = {
    mode: () => {
      if (deps.envMode !== null) return deps.envMode;
      fresh();
      return storedMode ?? "off";
    },
    modeSource: () => (deps.envMode !== null ? "env" : "stored"),
    setMode(mode) {
      if (deps.envMode !== null) {
        throw new AppError(
          "access_locked",
          `SVC_AUTH=${deps.envMode} is set in svc's environment and decides; change it there and restart svc.`,
        );
      }
      repo.saveState("auth_mode", mode);
      storedMode = mode;
    },
    hasAdminKey: () => [...fresh().values()].some((cached) => cached.info.role === "admin"),
    createKey(name, role) {
      if (byName(name)) throw conflict(`A key named "${name}" exists; revoke it first or pick another name.`);
      const { id, key } = generateKey();
      const createdAt = new Date(now()).toISOString();
      repo.insertKey({ id, name, role, hash: sha256(key), created_at: createdAt });
      const info: KeyInfo = { id, name, role, createdAt, lastUsedAt: null };
      fresh().set(id, { info, hash: sha256(key), touchedAt: 0 });
      return { key, info };
    },
    listKeys: () => [...fresh().values()].map((cached) => ({ ...cached.info })),
    revokeKey(name) {
      const id = repo.deleteKey(name);
      if (id === null) return false;
      keys.delete(id);
      recent = undefined;
      for (const [token, keyId] of sessions) if (keyId === id) sessions.delete(token);
      return true;
    },
    verifyKey(presented) {
      const at = now();
      const current = fresh(false, at);
      if (recent?.known !== undefined && sameKey(presented, recent.known)) return used(recent, at);
      const id = keyIdOf(presented);
      if (id === null) return null;
      // A key the cache does not know may have just been made beside the server (`svc keys`).
      const cached = current.get(id) ?? (isKeyShaped(presented) ? fresh(true, at).get(id) : undefined);
      if (!cached) return null;
      if (cached.known === undefined || !sameKey(presented, cached.known)) {
        if (!keyMatches(presented, cached.hash)) return null;
        cached.known = keyBytes(presented);
      }
      recent = cached;
      return used(cached, at);
    },
    createSession(keyId) {
      if (!fresh().has(keyId)) throw notFound("The key this session was for has been revoked.");
      const token = randomToken();
      repo.insertSession(sha256(token), keyId, new Date(now()).toISOString());
      sessions.set(token, keyId);
      return token;
    },
    sessionKey(token) {
      const cached = sessionOf(token);
      return cached ? used(cached) : null;
    },
    endSession(token) {
      sessions.delete(token);
      repo.deleteSession(sha256(token));
    },
    credentialEnded(keyId, session) {
      if (!fresh().has(keyId)) return "key revoked";
      if (session !== null && sessionOf(session)?.info.id !== keyId) return "logged out";
      return null;
    },
    createLoginCode(keyId) {
      const code = randomToken(18);
      repo.insertCode(sha256(code), keyId, new Date(now() + loginCodeTtlMs).toISOString());
      return code;
    },
    redeemCode(code) {
      if (!/^[A-Za-z0-9_-]{16,64}$/.test(code)) return null;
      const taken = repo.takeCode(sha256(code));
      if (!taken || Date.parse(taken.expires_at) <= now()) return null;
      const cached = fresh().get(taken.key_id);
      return cached ? cached.info : null;
    },
    firstRun() {
      if (service.mode() === "off" || service.hasAdminKey()) return null;
      let name = "admin";
      for (let n = 2; byName(name); n++) name = `admin-${n}`;
      const { info } = service.createKey(name, "admin");
      return { code: service.createLoginCode(info.id), key: info };
    },
  };
  return service;
}
