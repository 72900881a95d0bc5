import { AppError } from "../errors.ts";

/**
 * `interactive` work (a dictated clip, or nothing longer than one chunk) always runs before
 * `batch` work (one chunk of a long file), so a short clip waits for at most the chunk in progress.
 */
export type Lane = "interactive" | "batch";

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

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

export function createScheduler(options: SchedulerOptions): Scheduler {
  const setting = options.concurrency ?? 1;
  const concurrency = () => Math.max(1, typeof setting === "function" ? setting() : setting);
  const lanes: Record<Lane, Waiting[]> = { interactive: [], batch: [] };
  let running = 0;

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

  function run<T>(unit: Unit<T>): Promise<T> {
    if (unit.signal?.aborted) return Promise.reject(abortReason(unit.signal));
    const limit = typeof options.maxQueued === "function" ? options.maxQueued() : options.maxQueued;
    if (queued() >= limit) return Promise.reject(busy(unit.lane));
    return new Promise<T>((resolve, reject) => {
      const controller = new AbortController();
      const onAbort = () => {
        const reason = unit.signal ? abortReason(unit.signal) : undefined;
        waiting.cancel(reason);
        controller.abort(reason);
      };
      const lane = lanes[unit.lane];
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
      pump();
    });
  }

  return {
    run,
    stats: () => ({ running, queued: { interactive: lanes.interactive.length, batch: lanes.batch.length } }),
  };
}
