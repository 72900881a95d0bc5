export { keepAliveMs, keepAliveSchema } from "../settings/values.ts";

// Ollama's keep_alive, for a dictation server: after this long without a dictation, svc gives back
// what it loaded to dictate (the speech model, the sphinx decoder, the voice-activity detector, the
// compressed-upload decoder's worker) and loads it again on the next one. A homelab box shares its
// memory with a dozen other services.

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
