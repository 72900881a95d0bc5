// Wrong keys and codes, counted per client address: past the limit in a minute, that address waits
// (429 with Retry-After) and nobody else does.

export interface AuthThrottle {
  /** Whether any address has failed lately (when none has, nobody waits). */
  active(): boolean;
  /** Milliseconds the address must still wait, 0 when it may try. */
  waitFor(address: string): number;
  /** Counts one wrong key or code from the address. */
  failed(address: string): void;
}

const windowMs = 60_000;
// Past this many addresses the stale ones are dropped, so a flood of addresses cannot grow memory.
const maxTracked = 10_000;

export function createAuthThrottle(maxFailures: number, now: () => number = Date.now): AuthThrottle {
  const seen = new Map<string, { since: number; count: number }>();
  const current = (address: string) => {
    const entry = seen.get(address);
    if (entry && now() - entry.since >= windowMs) {
      seen.delete(address);
      return undefined;
    }
    return entry;
  };
  return {
    active: () => seen.size > 0,
    waitFor(address) {
      if (seen.size === 0) return 0;
      const entry = current(address);
      return entry && entry.count >= maxFailures ? entry.since + windowMs - now() : 0;
    },
    failed(address) {
      const entry = current(address);
      if (entry) {
        entry.count += 1;
        return;
      }
      if (seen.size >= maxTracked) {
        for (const [key, value] of seen) if (now() - value.since >= windowMs) seen.delete(key);
        if (seen.size >= maxTracked) seen.delete(seen.keys().next().value ?? "");
      }
      seen.set(address, { since: now(), count: 1 });
    },
  };
}
