import type { Database } from "bun:sqlite";

/** One key as stored: its hash, never the key. */
export interface AccessKeyRow {
  id: string;
  name: string;
  role: string;
  hash: Uint8Array;
  created_at: string;
  last_used_at: string | null;
  /** The access mode when it was made: `off` for a key made while keys were off. */
  made_under: string;
}

/** One console session as stored: the hashes of its token and check, never either. */
export interface AccessSessionRow {
  key_id: string;
  check_hash: Uint8Array;
  created_at: string;
  seen_at: string;
  made_under: string;
}

/** The keys, the console's sessions and login codes, and the stored access mode. */
export function createAccessRepo(db: Database) {
  const keys = db.query<AccessKeyRow, []>(
    "SELECT id, name, role, hash, created_at, last_used_at, made_under FROM access_keys ORDER BY created_at, name",
  );
  const insertKey = db.query<never, [string, string, string, Uint8Array, string, string]>(
    "INSERT INTO access_keys (id, name, role, hash, created_at, made_under) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const deleteKey = db.query<{ id: string }, [string]>("DELETE FROM access_keys WHERE name = ? RETURNING id");
  const touchKey = db.query<never, [string, string]>("UPDATE access_keys SET last_used_at = ? WHERE id = ?");
  const session = db.query<AccessSessionRow, [Uint8Array]>(
    "SELECT key_id, check_hash, created_at, seen_at, made_under FROM access_sessions WHERE hash = ?",
  );
  const insertSession = db.query<never, [Uint8Array, string, Uint8Array, string, string, string]>(
    "INSERT INTO access_sessions (hash, key_id, check_hash, created_at, seen_at, made_under) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const deleteSession = db.query<never, [Uint8Array]>("DELETE FROM access_sessions WHERE hash = ?");
  const touchSession = db.query<never, [string, Uint8Array]>(
    "UPDATE access_sessions SET seen_at = ? WHERE hash = ?",
  );
  // Past the cap, a key's oldest sessions go: its newest `keep` stay.
  const trimSessions = db.query<never, [string, string, number]>(
    `DELETE FROM access_sessions WHERE key_id = ? AND hash NOT IN
      (SELECT hash FROM access_sessions WHERE key_id = ? ORDER BY created_at DESC LIMIT ?)`,
  );
  const deleteSessionsMadeUnder = db.query<never, [string]>(
    "DELETE FROM access_sessions WHERE made_under = ?",
  );
  const insertCode = db.query<never, [Uint8Array, string, string]>(
    "INSERT INTO access_codes (hash, key_id, expires_at) VALUES (?, ?, ?)",
  );
  // A code works once: reading it deletes it, in the same statement.
  const takeCode = db.query<{ key_id: string; expires_at: string }, [Uint8Array]>(
    "DELETE FROM access_codes WHERE hash = ? RETURNING key_id, expires_at",
  );
  const state = db.query<{ value: string }, [string]>("SELECT value FROM access_state WHERE name = ?");
  const saveState = db.query<never, [string, string]>(
    "INSERT INTO access_state (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
  );
  // Changes by another connection (svc keys revoke beside a running server) bump this number.
  const dataVersion = db.query<{ data_version: number }, []>("PRAGMA data_version");
  return {
    keys: (): AccessKeyRow[] => keys.all(),
    insertKey(row: Omit<AccessKeyRow, "last_used_at">): void {
      insertKey.run(row.id, row.name, row.role, row.hash, row.created_at, row.made_under);
    },
    /** The removed key's id; its sessions and codes go with it. */
    deleteKey: (name: string): string | null => deleteKey.get(name)?.id ?? null,
    touchKey(id: string, at: string): void {
      touchKey.run(at, id);
    },
    session: (hash: Uint8Array): AccessSessionRow | null => session.get(hash),
    insertSession(hash: Uint8Array, row: AccessSessionRow, keep: number): void {
      db.transaction(() => {
        insertSession.run(hash, row.key_id, row.check_hash, row.created_at, row.seen_at, row.made_under);
        trimSessions.run(row.key_id, row.key_id, keep);
      })();
    },
    touchSession(hash: Uint8Array, at: string): void {
      touchSession.run(at, hash);
    },
    deleteSession(hash: Uint8Array): void {
      deleteSession.run(hash);
    },
    /** Ends every session made under `mode` (`off`: those made while keys were off). */
    deleteSessionsMadeUnder(mode: string): void {
      deleteSessionsMadeUnder.run(mode);
    },
    insertCode(hash: Uint8Array, keyId: string, expiresAt: string): void {
      insertCode.run(hash, keyId, expiresAt);
    },
    takeCode: (hash: Uint8Array) => takeCode.get(hash),
    state: (name: string): string | null => state.get(name)?.value ?? null,
    saveState(name: string, value: string): void {
      saveState.run(name, value);
    },
    dataVersion: (): number => dataVersion.get()?.data_version ?? 0,
  };
}

export type AccessRepo = ReturnType<typeof createAccessRepo>;
