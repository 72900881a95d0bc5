import { AppError } from "../errors.ts";

// After its socket drops mid-recording, the desktop app reconnects and sends the whole recording
// again at once. The live driver ends a dictation whose audio arrives faster than
// `dictate_max_speed` × real time (after a second's head start) with too_fast, so that a flood cannot
// fill the engine's queue ahead of everyone. A recording's catch-up is held here instead and fed to
// the driver at that pace: never refused, and never faster than the driver allows.

export interface CatchUpOptions {
  /** Hands bytes to the live dictation (the driver's `audio`); may throw. */
  feed(bytes: Uint8Array): void;
  /** `dictate_max_speed`. */
  maxSpeed(): number;
  /** `dictate_max_session_seconds` (0: no limit): held audio beyond it is refused at once. */
  maxSeconds(): number;
  bytesPerSecond: number;
  /** A feed that threw while draining the held audio. */
  fail(error: unknown): void;
}

export interface CatchUp {
  /** The next frame: fed now if the pace allows and nothing is held, else held. */
  push(bytes: Uint8Array): void;
  /** Resolves once everything held has been fed (at once when nothing is). */
  drained(): Promise<void>;
  /** Drops what is held (the recording ended). */
  clear(): void;
}

/** Below the driver's own allowance, so that the two clocks never disagree on a frame. */
const margin = 0.95;
/** Held audio when no session length applies: an hour. */
const maxHeldSeconds = 3600;

export function createCatchUp(options: CatchUpOptions): CatchUp {
  // Started after the driver's dictation: the allowance measured from here is the smaller one.
  const startedAt = performance.now();
  const held: Uint8Array[] = [];
  let heldSeconds = 0;
  let fed = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let waiting: (() => void)[] = [];
  const secondsOf = (bytes: Uint8Array) => bytes.byteLength / options.bytesPerSecond;
  const elapsed = () => (performance.now() - startedAt) / 1000;
  const allowance = () => margin * options.maxSpeed() * (elapsed() + 1);

  function feed(bytes: Uint8Array): void {
    fed += secondsOf(bytes);
    options.feed(bytes);
  }

  function settle(): void {
    const done = waiting;
    waiting = [];
    for (const resolve of done) resolve();
  }

  function drain(): void {
    timer = undefined;
    try {
      let next = held[0];
      while (next && fed + secondsOf(next) <= allowance()) {
        held.shift();
        heldSeconds -= secondsOf(next);
        feed(next);
        next = held[0];
      }
      if (next) schedule(next);
      else settle();
    } catch (error) {
      clear();
      options.fail(error);
    }
  }

  /** Wakes when the pace allows `next`. */
  function schedule(next: Uint8Array): void {
    const due = (fed + secondsOf(next)) / (margin * options.maxSpeed()) - 1;
    timer = setTimeout(drain, Math.max(5, (due - elapsed()) * 1000));
  }

  function clear(): void {
    clearTimeout(timer);
    timer = undefined;
    held.length = 0;
    heldSeconds = 0;
    settle();
  }

  return {
    push(bytes) {
      if (held.length === 0 && fed + secondsOf(bytes) <= allowance()) {
        feed(bytes);
        return;
      }
      const limit = options.maxSeconds() || maxHeldSeconds;
      if (fed + heldSeconds + secondsOf(bytes) > limit) {
        throw new AppError(
          "audio_too_long",
          `The dictation is longer than ${limit} s (dictate_max_session_seconds); stop it sooner.`,
        );
      }
      held.push(bytes);
      heldSeconds += secondsOf(bytes);
      if (timer === undefined) schedule(held[0] ?? bytes);
    },
    drained() {
      if (held.length === 0) return Promise.resolve();
      return new Promise((resolve) => waiting.push(resolve));
    },
    clear,
  };
}
