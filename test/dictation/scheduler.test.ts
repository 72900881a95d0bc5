import { describe, expect, test } from "bun:test";
import { createScheduler, type Lane } from "../../src/dictation/scheduler.ts";
import { AppError } from "../../src/errors.ts";

function deferred() {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe("createScheduler", () => {
  test("runs interactive units before batch units queued earlier", async () => {
    const scheduler = createScheduler({ maxQueued: 10 });
    const order: string[] = [];
    const gate = deferred();
    const unit = (name: string, lane: Lane, wait?: Promise<void>) =>
      scheduler.run({
        lane,
        execute: async () => {
          order.push(name);
          await wait;
        },
      });
    const first = unit("batch-1", "batch", gate.promise);
    const rest = [
      unit("batch-2", "batch"),
      unit("batch-3", "batch"),
      unit("clip-1", "interactive"),
      unit("clip-2", "interactive"),
    ];
    expect(scheduler.stats()).toEqual({ running: 1, guessing: 0, queued: { interactive: 2, batch: 2 } });
    gate.resolve();
    await Promise.all([first, ...rest]);
    expect(order).toEqual(["batch-1", "clip-1", "clip-2", "batch-2", "batch-3"]);
  });

  test("a guess runs only in idle time and yields its slot the moment other work arrives", async () => {
    const scheduler = createScheduler({ maxQueued: 10 });
    const order: string[] = [];
    let guessSignal: AbortSignal | undefined;
    // Runs until aborted, as a native whisper run stopped by its abort cell does.
    const guessing = scheduler.run({
      lane: "guess",
      execute: (signal) => {
        guessSignal = signal;
        order.push("guess");
        return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
      },
    });
    expect(scheduler.stats()).toEqual({ running: 1, guessing: 1, queued: { interactive: 0, batch: 0 } });
    // A second guess finds no free slot: refused at once, never queued.
    await expect(scheduler.run({ lane: "guess", execute: async () => "late" })).rejects.toMatchObject({
      code: "busy",
    });
    const piece = scheduler.run({
      lane: "interactive",
      execute: async () => {
        order.push("piece");
        return "committed";
      },
    });
    expect(guessSignal?.aborted).toBe(true);
    await expect(guessing).rejects.toMatchObject({ name: "AbortError" });
    expect(await piece).toBe("committed");
    expect(order).toEqual(["guess", "piece"]);
    // With work waiting, a guess is refused even when the running unit is about to finish.
    const gate = deferred();
    const busyUnit = scheduler.run({ lane: "batch", execute: () => gate.promise });
    const queuedUnit = scheduler.run({ lane: "batch", execute: async () => {} });
    await expect(scheduler.run({ lane: "guess", execute: async () => "x" })).rejects.toBeInstanceOf(AppError);
    gate.resolve();
    await Promise.all([busyUnit, queuedUnit]);
    expect(await scheduler.run({ lane: "guess", execute: async () => "idle again" })).toBe("idle again");
  });

  test("never runs more than `concurrency` units at once", async () => {
    const scheduler = createScheduler({ maxQueued: 100, concurrency: 2 });
    let active = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 12 }, () =>
        scheduler.run({
          lane: "interactive",
          execute: async () => {
            active++;
            peak = Math.max(peak, active);
            await Bun.sleep(2);
            active--;
          },
        }),
      ),
    );
    expect(peak).toBe(2);
  });

  test("reads a concurrency function whenever a slot may open", async () => {
    let limit = 1;
    const scheduler = createScheduler({ maxQueued: 100, concurrency: () => limit });
    const gate = deferred();
    const units = Array.from({ length: 4 }, () =>
      scheduler.run({ lane: "interactive", execute: () => gate.promise }),
    );
    expect(scheduler.stats()).toEqual({ running: 1, guessing: 0, queued: { interactive: 3, batch: 0 } });
    limit = 3;
    const more = scheduler.run({ lane: "interactive", execute: async () => {} });
    expect(scheduler.stats()).toEqual({ running: 3, guessing: 0, queued: { interactive: 2, batch: 0 } });
    gate.resolve();
    await Promise.all([...units, more]);
  });

  test("a full queue answers 503 busy with Retry-After", async () => {
    const scheduler = createScheduler({ maxQueued: 2, estimateMs: () => 1500 });
    const gate = deferred();
    const work = () => scheduler.run({ lane: "interactive", execute: () => gate.promise });
    const accepted = [work(), work(), work()];
    const refused = await work().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    const error = refused as AppError;
    expect(error.status).toBe(503);
    expect(error.code).toBe("busy");
    expect(Number(error.headers["Retry-After"])).toBeGreaterThanOrEqual(5);
    gate.resolve();
    await Promise.all(accepted);
  });

  test("a client that disconnects while queued is dropped without running", async () => {
    const scheduler = createScheduler({ maxQueued: 10 });
    const gate = deferred();
    const blocker = scheduler.run({ lane: "interactive", execute: () => gate.promise });
    const client = new AbortController();
    let ran = false;
    const queued = scheduler.run({
      lane: "interactive",
      signal: client.signal,
      execute: async () => {
        ran = true;
      },
    });
    client.abort(new Error("client went away"));
    await expect(queued).rejects.toThrow("client went away");
    expect(scheduler.stats().queued.interactive).toBe(0);
    gate.resolve();
    await blocker;
    expect(ran).toBe(false);
  });

  test("a client that disconnects while running aborts the work's signal", async () => {
    const scheduler = createScheduler({ maxQueued: 10 });
    const client = new AbortController();
    const seen = scheduler.run({
      lane: "interactive",
      signal: client.signal,
      execute: (signal) =>
        new Promise<string>((resolve) => {
          signal.addEventListener("abort", () => resolve("aborted"));
        }),
    });
    await Bun.sleep(1);
    client.abort();
    expect(await seen).toBe("aborted");
    expect(scheduler.stats().running).toBe(0);
  });

  test("a failing unit frees its slot for the next one", async () => {
    const scheduler = createScheduler({ maxQueued: 10 });
    const failed = scheduler.run({
      lane: "interactive",
      execute: async () => {
        throw new Error("engine crashed");
      },
    });
    const next = scheduler.run({ lane: "interactive", execute: async () => "ok" });
    await expect(failed).rejects.toThrow("engine crashed");
    expect(await next).toBe("ok");
  });

  test("an already-aborted signal is refused at once", async () => {
    const scheduler = createScheduler({ maxQueued: 10 });
    const client = new AbortController();
    client.abort(new Error("gone"));
    await expect(
      scheduler.run({ lane: "batch", signal: client.signal, execute: async () => 1 }),
    ).rejects.toThrow("gone");
  });
});
