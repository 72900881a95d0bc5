import { AppError } from "../../src/errors.ts";

/** svc's error envelope, with `details` open for the test to narrow. */
export type ErrorBody<Details = Record<string, unknown> & { limit?: number; folder?: string }> = {
  error: { code: string; message: string; details?: Details };
};

/** The `error` of an answer's envelope. */
export const errorOf = async (res: Response): Promise<ErrorBody<unknown>["error"]> =>
  ((await res.json()) as ErrorBody<unknown>).error;

/** What `promise` rejected with (undefined when it resolved). */
export const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/** The AppError `promise` rejected with; fails the test when it resolved or threw something else. */
export async function appErrorOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await rejection(promise);
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}
