import type { Database } from "bun:sqlite";

/** One key as stored: its hash, never the key. */
export interface AccessKeyRow {
  id: string;
  name: string;
  role: string;
  hash: Uint8Array;
  created_at: string;
  last_used_at: string | null;
}

/** The keys, the console's sessions and login codes, and the stored access mode. */
export function createAccessRepo(db: Database) {
  const keys = db.query<AccessKeyRow, []>(
    "SELECT id, name, role, hash, created_at, last_used_at FROM access_keys ORDER BY created_at, name",
  );
  const insertKey = db.query<never, [string, string, string, Uint8Array, string]>(
    "INSERT INTO access_keys (id, name, role, hash, created_at) VALUES (?, ?, ?, ?, ?)",
  );
  const deleteKey = db.query<{ id: string }, [string]>("DELETE FROM access_keys WHERE name = ? RETURNING id");
  const touchKey = db.query<never, [string, string]>("UPDATE access_keys SET last_used_at = ? WHERE id = ?");
  const session = db.query<{ key_id: string }, [Uint8Array]>(
    "SELECT key_id FROM access_sessions WHERE hash = ?",
  );
  const insertSession = db.query<never, [Uint8Array, string, string]>(
    "INSERT INTO access_sessions (hash, key_id, created_at) VALUES (?, ?, ?)",
  );
  const deleteSession = db.query<never, [Uint8Array]>("DELETE FROM access_sessions WHERE hash = ?");
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
      insertKey.run(row.id, row.name, row.role, row.hash, row.created_at);
    },
    /** The removed key's id; its sessions and codes go with it. */
    deleteKey: (name: string): string | null => deleteKey.get(name)?.id ?? null,
    touchKey(id: string, at: string): void {
      touchKey.run(at, id);
    },
    sessionKey: (hash: Uint8Array): string | null => session.get(hash)?.key_id ?? null,
    insertSession(hash: Uint8Array, keyId: string, at: string): void {
      insertSession.run(hash, keyId, at);
    },
    deleteSession(hash: Uint8Array): void {
      deleteSession.run(hash);
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
