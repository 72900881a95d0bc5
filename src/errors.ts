import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * The one error type every layer throws. The HTTP renderer turns it into
 * `{"error":{"code","message","details?"}}` with `status`; anything else becomes 500 `internal`.
 */
export class AppError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: string;
  readonly details: unknown;
  readonly headers: Record<string, string>;

  constructor(
    status: ContentfulStatusCode,
    code: string,
    message: string,
    options: { details?: unknown; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "AppError";
    this.status = status;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

export const badRequest = (code: string, message: string, details?: unknown) =>
  new AppError(400, code, message, { details });

export const notFound = (message: string, details?: unknown) =>
  new AppError(404, "not_found", message, { details });

export const conflict = (message: string, details?: unknown) =>
  new AppError(409, "conflict", message, { details });

export const payloadTooLarge = (message: string, details?: unknown) =>
  new AppError(413, "payload_too_large", message, { details });

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;

/** The message of whatever was thrown, for a log line or an operator's message. */
export const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The `code` a Node, Bun or SQLite error carries ("EADDRINUSE", "SQLITE_BUSY"), if any. */
export const errorCode = (error: unknown): unknown => (error as { code?: unknown } | null)?.code;
