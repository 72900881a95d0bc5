// Wrong keys and codes, counted per client address and per network: past the limit in a minute,
// that address (or every address of a network that spread its guesses) waits, with 429 and
// Retry-After, for its wrong guesses only. A right key or code is checked first and always works,
// so one host's guesses never lock the owner out.
import { networkOf } from "../addresses.ts";

export interface AuthThrottle {
  /** Whether any address has failed lately (when none has, nobody waits). */
  active(): boolean;
  /** Milliseconds the address must still wait, 0 when it may try. */
  waitFor(address: string): number;
  /** Counts one wrong key or code from the address (and its network). */
  failed(address: string): void;
}

const windowMs = 60_000;
// Past this many addresses the stale ones are dropped, so a flood of addresses cannot grow memory.
const maxTracked = 10_000;
/**
 * A /24 or /64 may send this many times an address's limit: enough for a household's typos, while
 * an attacker who holds the whole network gains a factor of four, not 256.
 */
export const networkFactor = 4;

export function createAuthThrottle(maxFailures: number, now: () => number = Date.now): AuthThrottle {
  const seen = new Map<string, { since: number; count: number }>();
  const current = (name: string) => {
    const entry = seen.get(name);
    if (entry && now() - entry.since >= windowMs) {
      seen.delete(name);
      return undefined;
    }
    return entry;
  };
  const waitOf = (name: string, limit: number) => {
    const entry = current(name);
    return entry && entry.count >= limit ? entry.since + windowMs - now() : 0;
  };
  const count = (name: string) => {
    const entry = current(name);
    if (entry) {
      entry.count += 1;
      return;
    }
    if (seen.size >= maxTracked) {
      for (const [key, value] of seen) if (now() - value.since >= windowMs) seen.delete(key);
      if (seen.size >= maxTracked) seen.delete(seen.keys().next().value ?? "");
    }
    seen.set(name, { since: now(), count: 1 });
  };
  return {
    active: () => seen.size > 0,
    waitFor(address) {
      if (seen.size === 0) return 0;
      const network = networkOf(address);
      const own = waitOf(address, maxFailures);
      return network === address ? own : Math.max(own, waitOf(network, maxFailures * networkFactor));
    },
    failed(address) {
      count(address);
      const network = networkOf(address);
      if (network !== address) count(network);
    },
  };
}
