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
  /** Made while keys were off (by anyone who could reach svc then): the console warns of these. */
  madeWhileOff: boolean;
}

/** A new console session: its cookie's token and the check its console sends beside it. */
export interface NewSession {
  token: string;
  check: string;
}

/** How long console sessions live, and how many one key may hold (SVC_SESSION_*). */
export interface SessionBounds {
  /** Unused this long, a session ends (SVC_SESSION_IDLE_DAYS). */
  idleMs: number;
  /** However used, a session ends this long after it began (SVC_SESSION_MAX_DAYS). */
  maxMs: number;
  /** A key's sessions past this many end, oldest first (SVC_SESSIONS_PER_KEY). */
  perKey: number;
}

export const defaultSessionBounds: SessionBounds = {
  idleMs: 30 * 86_400_000,
  maxMs: 180 * 86_400_000,
  perKey: 20,
};

/** A one-time login code: it logs in once with its key, until `expiresAt` (ISO 8601). */
export interface LoginCode {
  code: string;
  expiresAt: string;
}

/** How long a one-time login code works. */
export const loginCodeTtlMs = 15 * 60 * 1000;
// last_used_at is written at most this often per key: a write per request would cost the API its speed.
const touchEveryMs = 60_000;
// A session's seen_at likewise: the idle lifetime is days, so a minute's precision is plenty.
const touchSessionEveryMs = 60_000;
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
  /** A session for the key, made under the mode in force; a key's oldest past the cap end. */
  createSession(keyId: string): NewSession;
  /**
   * The key a session is for, or null once it ended, its key went, it outlived its bounds, or
   * `check` is not its check. `check` undefined: a request that changes nothing and opens no
   * socket (a download the browser navigates to), which cannot carry one.
   */
  sessionKey(token: string, check: string | undefined): KeyInfo | null;
  endSession(token: string): void;
  /** Ends the sessions made while keys were off: keys are back on, and those were anyone's. */
  endSessionsMadeWhileOff(): void;
  /**
   * Why a credential an open socket was made with has ended since, or null while it holds: its key
   * was revoked (here, or by `svc keys revoke` beside the server), or its session logged out.
   */
  credentialEnded(keyId: string, session: string | null): string | null;
  /** A code that logs in once as `keyId` within 15 minutes (until `expiresAt`). */
  createLoginCode(keyId: string): LoginCode;
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
  madeWhileOff: row.made_under === "off",
});

/** A session as remembered: its key, its check's hash and its times. */
interface SessionState {
  keyId: string;
  checkHash: Uint8Array;
  createdAt: number;
  seenAt: number;
  touchedAt: number;
}

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
  sessions?: SessionBounds;
  now?: () => number;
}): AccessService {
  const { repo } = deps;
  const now = deps.now ?? Date.now;
  const bounds = deps.sessions ?? defaultSessionBounds;
  let keys = new Map<string, Cached>();
  const sessions = new Map<string, SessionState>();
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
    // Another connection may have ended sessions too (a revoked key's): they are read again.
    sessions.clear();
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

  /**
   * The key a console session is for, remembered once read; null once it ended, its key went or it
   * outlived its idle or absolute lifetime (then it is deleted).
   */
  function sessionOf(token: string, at = now()): { cached: Cached; session: SessionState } | null {
    const current = fresh(false, at);
    let session = sessions.get(token);
    if (session === undefined) {
      const row = repo.session(sha256(token));
      if (row === null) return null;
      const seenAt = Date.parse(row.seen_at);
      session = {
        keyId: row.key_id,
        checkHash: row.check_hash,
        createdAt: Date.parse(row.created_at),
        seenAt,
        touchedAt: seenAt,
      };
      sessions.set(token, session);
    }
    const cached = current.get(session.keyId);
    if (!cached || at - session.seenAt >= bounds.idleMs || at - session.createdAt >= bounds.maxMs) {
      sessions.delete(token);
      if (cached) repo.deleteSession(sha256(token));
      return null;
    }
    return { cached, session };
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
      const madeUnder = service.mode();
      repo.insertKey({ id, name, role, hash: sha256(key), created_at: createdAt, made_under: madeUnder });
      const info: KeyInfo = {
        id,
        name,
        role,
        createdAt,
        lastUsedAt: null,
        madeWhileOff: madeUnder === "off",
      };
      fresh().set(id, { info, hash: sha256(key), touchedAt: 0 });
      return { key, info };
    },
    listKeys: () => [...fresh().values()].map((cached) => ({ ...cached.info })),
    revokeKey(name) {
      const id = repo.deleteKey(name);
      if (id === null) return false;
      keys.delete(id);
      recent = undefined;
      for (const [token, session] of sessions) if (session.keyId === id) sessions.delete(token);
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
      const check = randomToken();
      const at = now();
      const stamp = new Date(at).toISOString();
      const checkHash = sha256(check);
      const row = {
        key_id: keyId,
        check_hash: checkHash,
        created_at: stamp,
        seen_at: stamp,
        made_under: service.mode(),
      };
      repo.insertSession(sha256(token), row, bounds.perKey);
      // The cap may have ended others of this key's: they are read again when next used.
      for (const [other, session] of sessions) if (session.keyId === keyId) sessions.delete(other);
      sessions.set(token, { keyId, checkHash, createdAt: at, seenAt: at, touchedAt: at });
      return { token, check };
    },
    sessionKey(token, check) {
      const at = now();
      const found = sessionOf(token, at);
      if (found === null) return null;
      const { cached, session } = found;
      if (check !== undefined && !keyMatches(check, session.checkHash)) return null;
      session.seenAt = at;
      if (at - session.touchedAt >= touchSessionEveryMs) {
        session.touchedAt = at;
        repo.touchSession(sha256(token), new Date(at).toISOString());
      }
      return used(cached, at);
    },
    endSession(token) {
      sessions.delete(token);
      repo.deleteSession(sha256(token));
    },
    endSessionsMadeWhileOff() {
      repo.deleteSessionsMadeUnder("off");
      sessions.clear();
    },
    credentialEnded(keyId, session) {
      if (!fresh().has(keyId)) return "key revoked";
      if (session !== null && sessionOf(session)?.cached.info.id !== keyId) return "logged out";
      return null;
    },
    createLoginCode(keyId) {
      const code = randomToken(18);
      const expiresAt = new Date(now() + loginCodeTtlMs).toISOString();
      repo.insertCode(sha256(code), keyId, expiresAt);
      return { code, expiresAt };
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
      return { code: service.createLoginCode(info.id).code, key: info };
    },
  };
  return service;
}
