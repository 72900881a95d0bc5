import * as v from "valibot";

// Ollama's keep_alive, for a dictation server: after this long without a dictation, svc gives back
// what it loaded to dictate (the speech model, the sphinx decoder, the voice-activity detector, the
// compressed-upload decoder's worker) and loads it again on the next one. A homelab box shares its
// memory with a dozen other services.

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
/** Go's duration syntax, as Ollama takes it: "30s", "5m", "1h30m", "1.5h"; or a bare number of seconds. */
const durationPattern = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;

/** How many milliseconds a keep_alive value stands for; Infinity for a negative one (never). */
export function keepAliveMs(value: string | number): number {
  if (typeof value === "number") return value < 0 ? Number.POSITIVE_INFINITY : value * 1000;
  const text = value.trim();
  if (/^-?\d+(?:\.\d+)?$/.test(text)) return keepAliveMs(Number(text));
  if (text.startsWith("-")) return Number.POSITIVE_INFINITY;
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    ms += Number(amount) * (units[unit ?? "s"] ?? 1000);
  }
  return ms;
}

export const keepAliveSchema = v.union(
  [
    v.pipe(v.number(), v.finite()),
    v.pipe(
      v.string(),
      v.trim(),
      v.check(
        (text) => /^-?\d+(?:\.\d+)?$/.test(text) || durationPattern.test(text.replace(/^-/, "")),
        'must be a duration such as "30s", "5m" or "1h", a number of seconds, 0 or -1',
      ),
    ),
  ],
  'must be a duration such as "30s", "5m" or "1h", a number of seconds, 0 (after each dictation) or -1 (never)',
);

export interface KeepAliveDeps {
  /** The keep_alive setting now, in milliseconds (Infinity: never). */
  delayMs(): number;
  /** Gives back what was loaded; answers false (nothing given back) while a dictation runs. */
  release(): Promise<boolean>;
}

export interface KeepAlive {
  /** A dictation used what is loaded: the countdown starts again from now. */
  used(): void;
  close(): void;
}

/** While something is still dictating when the time comes, it looks again this much later. */
const RECHECK_MS = 1000;

export function createKeepAlive(deps: KeepAliveDeps): KeepAlive {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  function arm(ms: number): void {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (closed || !Number.isFinite(ms)) return;
    timer = setTimeout(fire, ms);
    // A countdown never keeps the process alive on its own (a CLI run ends when its work does).
    timer.unref?.();
  }

  async function fire(): Promise<void> {
    timer = undefined;
    const released = await deps.release().catch(() => false);
    if (!released) arm(Math.max(RECHECK_MS, deps.delayMs()));
  }

  return {
    used: () => arm(deps.delayMs()),
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
