// Who this browser is to svc (GET /api/auth/session), shared by every screen: the login page, the
// banner and the Access screen read it; a 401 from any call asks again.
import { useEffect, useState } from "preact/hooks";
import { type Answer, api, onUnauthorized } from "./api.ts";
import { onSocketRefused } from "./events.ts";

export type Session = Answer<"get", "/api/auth/session">;

let current: Session | undefined;
let failed: unknown;
const listeners = new Set<() => void>();

/** Asks svc again; every `useSession` re-renders with the answer. */
export async function refreshSession(): Promise<void> {
  try {
    current = await api.get("/api/auth/session");
    failed = undefined;
  } catch (error) {
    failed = error;
  }
  for (const listener of listeners) listener();
}

/** A key shown once (turning keys on from the banner made it), until the person dismisses it. */
let revealed: { name: string; key: string } | undefined;

export function revealKey(key: { name: string; key: string } | undefined): void {
  revealed = key;
  for (const listener of listeners) listener();
}

let started = false;

export function useSession(): { session: Session | undefined; error: unknown; revealed: typeof revealed } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const update = () => setTick((tick) => tick + 1);
    listeners.add(update);
    if (!started) {
      started = true;
      onUnauthorized(() => void refreshSession());
      // A revoked key or an ended session closes the events socket first: the login follows it.
      onSocketRefused(() => void refreshSession());
      void refreshSession();
    }
    return () => {
      listeners.delete(update);
    };
  }, []);
  return { session: current, error: failed, revealed };
}
