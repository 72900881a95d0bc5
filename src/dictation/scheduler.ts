import { AppError } from "../errors.ts";

/**
 * `interactive` work (a dictated clip, or nothing longer than one chunk) always runs before
 * `batch` work (one chunk of a long file), so a short clip waits for at most the chunk in progress.
 * A `guess` (a live dictation's revisable partial) only fills idle time: it runs when a slot is
 * free and nothing waits, is refused `busy` otherwise, and is aborted the moment other work needs
 * its slot, so it never delays a committed piece or an upload.
 */
export type Lane = "interactive" | "batch" | "guess";

export interface SchedulerOptions {
  /** Units allowed to wait (not counting the ones running); one more is a 503 `busy`. Read per call. */
  maxQueued: number | (() => number);
  /** Units run at once; an engine that uses every core wants 1. Read whenever a slot may open. */
  concurrency?: number | (() => number);
  /** Used for `Retry-After` when the queue is full: the typical cost of one unit. */
  estimateMs?: (lane: Lane) => number;
}

export interface Unit<T> {
  lane: Lane;
  /** The client's signal: aborting it drops queued work and aborts running work. */
  signal?: AbortSignal;
  execute(signal: AbortSignal): Promise<T>;
}

export interface SchedulerStats {
  running: number;
  /** Of `running`, the guesses (which yield their slot to any other work). */
  guessing: number;
  queued: { interactive: number; batch: number };
}

export interface Scheduler {
  run<T>(unit: Unit<T>): Promise<T>;
  stats(): SchedulerStats;
}

interface Waiting {
  start(): void;
  cancel(reason: unknown): void;
}

/** Why a guess stopped: other work took its slot. */
export const yielded = () => new DOMException("A guess yielded to other work.", "AbortError");

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

export function createScheduler(options: SchedulerOptions): Scheduler {
  const setting = options.concurrency ?? 1;
  const concurrency = () => Math.max(1, typeof setting === "function" ? setting() : setting);
  const lanes: Record<Exclude<Lane, "guess">, Waiting[]> = { interactive: [], batch: [] };
  let running = 0;
  /** The running guesses, each with the controller that makes it yield. */
  const guesses = new Set<AbortController>();

  const queued = () => lanes.interactive.length + lanes.batch.length;

  function pump(): void {
    while (running < concurrency()) {
      const next = lanes.interactive.shift() ?? lanes.batch.shift();
      if (!next) return;
      next.start();
    }
  }

  function busy(lane: Lane): AppError {
    const estimate = options.estimateMs?.(lane) ?? 2000;
    const seconds = Math.max(1, Math.ceil(((queued() + running) * estimate) / concurrency() / 1000));
    return new AppError("busy", `The speech engine is busy (${queued()} requests waiting); retry shortly.`, {
      headers: { "Retry-After": String(seconds) },
      details: { queued: queued(), running },
    });
  }

  /** Work that needs a slot takes one from a running guess. */
  function preempt(): void {
    if (running < concurrency()) return;
    for (const guess of guesses) {
      guess.abort(yielded());
      return;
    }
  }

  function guess<T>(unit: Unit<T>): Promise<T> {
    if (running >= concurrency() || queued() > 0) return Promise.reject(busy("interactive"));
    const controller = new AbortController();
    const signal = unit.signal ? AbortSignal.any([unit.signal, controller.signal]) : controller.signal;
    running++;
    guesses.add(controller);
    return unit.execute(signal).finally(() => {
      guesses.delete(controller);
      running--;
      pump();
    });
  }

  function run<T>(unit: Unit<T>): Promise<T> {
    if (unit.signal?.aborted) return Promise.reject(abortReason(unit.signal));
    const { lane: name } = unit;
    if (name === "guess") return guess(unit);
    const limit = typeof options.maxQueued === "function" ? options.maxQueued() : options.maxQueued;
    if (queued() >= limit) return Promise.reject(busy(unit.lane));
    return new Promise<T>((resolve, reject) => {
      const controller = new AbortController();
      const onAbort = () => {
        const reason = unit.signal ? abortReason(unit.signal) : undefined;
        waiting.cancel(reason);
        controller.abort(reason);
      };
      const lane = lanes[name];
      let started = false;
      const waiting: Waiting = {
        start() {
          started = true;
          running++;
          // The slot is freed before the caller resumes, so stats never show finished work.
          unit
            .execute(controller.signal)
            .finally(() => {
              unit.signal?.removeEventListener("abort", onAbort);
              running--;
              pump();
            })
            .then(resolve, reject);
        },
        cancel(reason) {
          if (started) return;
          const index = lane.indexOf(waiting);
          if (index >= 0) lane.splice(index, 1);
          unit.signal?.removeEventListener("abort", onAbort);
          reject(reason);
        },
      };
      unit.signal?.addEventListener("abort", onAbort, { once: true });
      lane.push(waiting);
      preempt();
      pump();
    });
  }

  return {
    run,
    stats: () => ({
      running,
      guessing: guesses.size,
      queued: { interactive: lanes.interactive.length, batch: lanes.batch.length },
    }),
  };
}
