import type { Role } from "./keys.ts";
import type { KeyInfo } from "./service.ts";

/**
 * Who made a request. `key` names the key (history records it); null for a trusted client (auth
 * off, or an unproxied loopback peer under `keys`), which may do everything, or for nobody.
 */
export interface Principal {
  role: Role | null;
  key: KeyInfo | null;
  /** How it was established: no keys needed, a Bearer key, the console's session cookie, or none. */
  via: "trusted" | "bearer" | "session" | "none";
  /** The console session's token, under `via: "session"` (a socket it opened ends with it). */
  session?: string;
}

export const trustedPrincipal: Principal = { role: "admin", key: null, via: "trusted" };
export const nobody: Principal = { role: null, key: null, via: "none" };

/** The key name history records for a request's principal (null: trusted, no key). */
export const keyNameOf = (principal: Principal): string | null => principal.key?.name ?? null;
