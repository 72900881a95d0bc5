/** Raised when a plugin step runs out of time; the step itself cannot be cancelled. */
export class StepTimeout extends Error {
  constructor(ms: number) {
    super(`timed out after ${ms} ms`);
    this.name = "StepTimeout";
  }
}

/**
 * Settles with `work` or rejects with StepTimeout after `ms`. Synchronous code in `work` runs
 * before this is called, so only asynchronous waits are bounded.
 */
export async function withTimeout<T>(work: PromiseLike<T> | T, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StepTimeout(ms)), ms);
  });
  try {
    return await Promise.race([Promise.resolve(work), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
