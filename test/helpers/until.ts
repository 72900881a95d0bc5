export interface UntilOptions {
  /** Default 10 s. */
  timeoutMs?: number;
  /** Default 50 ms. */
  everyMs?: number;
  /** What is awaited, for the error. */
  what?: string;
}

/**
 * Reads `read` until `ok` holds, every `everyMs`, for at most `timeoutMs`, and answers the value
 * that passed; past the deadline it throws, naming `what` and the last value read. The suite's
 * one way to wait for something asynchronous: never unbounded, never a bare sleep.
 */
export function until<T, U extends T>(
  read: () => T | Promise<T>,
  ok: (value: T) => value is U,
  options?: UntilOptions,
): Promise<U>;
export function until<T>(
  read: () => T | Promise<T>,
  ok?: (value: T) => boolean,
  options?: UntilOptions,
): Promise<T>;
export async function until<T>(
  read: () => T | Promise<T>,
  ok: (value: T) => boolean = Boolean,
  options: UntilOptions = {},
): Promise<T> {
  const { timeoutMs = 10_000, everyMs = 50, what = "condition" } = options;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (performance.now() > deadline) {
      const last = typeof value === "function" ? value.name : JSON.stringify(value);
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last value: ${last}`);
    }
    await Bun.sleep(everyMs);
  }
}
