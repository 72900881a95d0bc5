// A client dripping an event's bytes (one every 20 s, mid-payload) renews the idle timeout with
// each byte and would hold its connection forever: inside an event, bytes must keep coming.

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
