// How fast a client's bytes must come, and how fast they may: a client dripping an event's bytes
// (one every 20 s, mid-payload) renews the idle timeout with each byte and would hold its
// connection forever, and one flooding events that are not audio (60 KB pings) makes svc read and
// parse them as fast as the network goes. Audio has its own pace (dictation/live/pace.ts).

export interface EventRateOptions {
  /** Bytes per second an event must arrive at, measured over each window; 0 turns it off. */
  minBytesPerSecond(): number;
  windowMs: number;
  /** True while svc is not reading from the client (its bytes cannot arrive then). */
  paused(): boolean;
  /** The event arrived too slowly (called once). */
  onSlow(minBytesPerSecond: number): void;
}

/** Watches the bytes of the event being read: `received` after each chunk, `stop` at the end. */
export function createEventRate(options: EventRateOptions) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inWindow = 0;
  let midEvent = false;

  function check(): void {
    timer = undefined;
    if (!midEvent) return;
    const rate = options.minBytesPerSecond();
    if (rate > 0 && !options.paused() && inWindow < (rate * options.windowMs) / 1000) {
      options.onSlow(rate);
      return;
    }
    inWindow = 0;
    timer = setTimeout(check, options.windowMs);
  }

  return {
    /** `bytes` arrived; `midEvent`: an event is still incomplete after them. */
    received(bytes: number, stillMidEvent: boolean): void {
      if (!midEvent && stillMidEvent) {
        // An event began: it gets a whole window before its first check.
        clearTimeout(timer);
        timer = setTimeout(check, options.windowMs);
        inWindow = 0;
      } else {
        inWindow += bytes;
      }
      midEvent = stillMidEvent;
    },
    stop(): void {
      clearTimeout(timer);
      timer = undefined;
      midEvent = false;
    },
  };
}

/**
 * A token bucket for the bytes of events other than audio: `perSecond` of them a second, with a
 * second's worth to start with. `take` answers false when an event does not fit: the client is
 * sending faster than any Home Assistant does (a command's events are a few hundred bytes).
 */
export function createControlBudget(perSecond: () => number) {
  let tokens = perSecond();
  let refilled = performance.now();
  return {
    take(bytes: number): boolean {
      const rate = perSecond();
      const now = performance.now();
      tokens = Math.min(rate, tokens + (rate * (now - refilled)) / 1000);
      refilled = now;
      if (bytes > tokens) return false;
      tokens -= bytes;
      return true;
    },
  };
}
