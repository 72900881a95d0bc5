import { statSync } from "node:fs";
import { dirname } from "node:path";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type CodeWithStatus, type ErrorCode, statusOf } from "./error-codes.ts";

/**
 * The one error type every layer throws, with a code from the table in error-codes.ts, which gives
 * its status. The HTTP renderer turns it into `{"error":{"code","message","details?"}}`; anything
 * else becomes 500 `internal`.
 */
export class AppError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: ErrorCode;
  readonly details: unknown;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: unknown; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "AppError";
    this.status = statusOf(code);
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

export const badRequest = (code: CodeWithStatus<400>, message: string, details?: unknown) =>
  new AppError(code, message, { details });

export const notFound = (message: string, details?: unknown) =>
  new AppError("not_found", message, { details });

export const conflict = (message: string, details?: unknown) =>
  new AppError("conflict", message, { details });

export const payloadTooLarge = (message: string, details?: unknown) =>
  new AppError("payload_too_large", message, { details });

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;

/** The message of whatever was thrown, for a log line or an operator's message. */
export const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The message and, when the error carries one, its `details.hint` (what to do), for a person at a terminal. */
export function explain(error: unknown): string {
  const hint = isAppError(error) ? (error.details as { hint?: unknown } | undefined)?.hint : undefined;
  return typeof hint === "string" ? `${reasonOf(error)}\n  ${hint}` : reasonOf(error);
}

/** The `code` a Node, Bun or SQLite error carries ("EADDRINUSE", "SQLITE_BUSY"), if any. */
export const errorCode = (error: unknown): unknown => (error as { code?: unknown } | null)?.code;

const fullCodes = new Set<unknown>(["SQLITE_FULL", "ENOSPC", "EDQUOT"]);

/** A write that found no room: SQLITE_FULL, ENOSPC (disk full) or EDQUOT (quota used up). */
export const isStorageFull = (error: unknown): boolean => fullCodes.has(errorCode(error));

/**
 * 507 `storage_full`: the disk holding `folder` (when known) had no room for the write `cause`.
 * `outcome` says what that left undone, `fix` what to do.
 */
export function storageFull(
  folder: string | undefined,
  cause: unknown,
  { outcome = "this change was not saved", fix = "free space on it and send it again" } = {},
): AppError {
  const where = folder === undefined ? "The disk" : `The disk holding ${folder}`;
  return new AppError("storage_full", `${where} is full, so ${outcome} (${reasonOf(cause)}): ${fix}.`, {
    details: folder === undefined ? undefined : { folder },
    cause,
  });
}

/**
 * The 507 for SQLite's SQLITE_FULL ("database or disk is full": the database's folder) or a file
 * write's ENOSPC/EDQUOT (the folder of the file it names, if it names one); undefined for any
 * other error. SQLite rolls the failed statement back, so nothing was half-saved.
 */
export function storageFullOf(error: unknown, databasePath: string): AppError | undefined {
  if (!isStorageFull(error)) return undefined;
  if (errorCode(error) === "SQLITE_FULL") {
    const memory = databasePath === "" || databasePath === ":memory:";
    return storageFull(memory ? undefined : dirname(databasePath), error, {
      fix: "free space on it (or move SVC_DB_PATH to a larger disk) and send it again; the database is intact",
    });
  }
  const file = (error as { path?: unknown }).path;
  return storageFull(typeof file === "string" && file !== "" ? dirname(file) : undefined, error);
}

const deniedCodes = new Set<unknown>(["EACCES", "EPERM"]);

/**
 * A file svc may not write in its own folders (a models folder `svc models pull` made as root, say):
 * 503 `storage_not_writable` naming the path, its owner and the command that gives it back, instead
 * of a bare 500.
 */
export function permissionDeniedOf(error: unknown): AppError | undefined {
  if (!deniedCodes.has(errorCode(error))) return undefined;
  const path = (error as { path?: unknown }).path;
  if (typeof path !== "string" || path === "") return undefined;
  const uid = process.getuid?.();
  let owner = "";
  try {
    owner = ` (owned by uid ${statSync(path).uid})`;
  } catch {
    try {
      owner = ` (its folder is owned by uid ${statSync(dirname(path)).uid})`;
    } catch {}
  }
  const fix =
    uid === undefined
      ? "give it to the user svc runs as"
      : `svc runs as uid ${uid}: sudo chown -R ${uid}:${process.getgid?.() ?? uid} ${dirname(path)}`;
  return new AppError("storage_not_writable", `svc may not write ${path}${owner}; ${fix}.`, {
    cause: error,
    details: { path },
  });
}
