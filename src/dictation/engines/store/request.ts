import { open } from "node:fs/promises";
import { dirname } from "node:path";
import type { CodeWithStatus } from "../../../error-codes.ts";
import { AppError, isStorageFull, reasonOf, storageFull } from "../../../errors.ts";

import { newSha256, removeFile, type Sha256 } from "./files.ts";

export interface Attempt {
  partial: string;
  /** Bytes already in the partial file (and in the hasher). */
  offset: number;
  expected: number | undefined;
  attempt: number;
}

/** "retry": the partial file cannot be continued (416, or a range that starts elsewhere); start over. */
export type AttemptOutcome = "retry" | { hasher: Sha256; resumedFrom: number };

const defaultIdleTimeoutMs = 60_000;

const failure = (target: DownloadTarget, code: CodeWithStatus<502>, message: string, details: object = {}) =>
  new AppError(code, message, { details: { id: target.id, url: target.url, ...details } });

function httpError(target: DownloadTarget, response: Response): AppError {
  if (response.status === 404) {
    return failure(
      target,
      "model_not_found_upstream",
      `${target.url} answered 404 Not Found. If you use a mirror (SVC_MODEL_BASE_URL), check that it holds this file.`,
      { status: 404 },
    );
  }
  const status = `${response.status} ${response.statusText}`.trim();
  return failure(target, "download_failed", `${target.url} answered ${status}.`, { status: response.status });
}

/** Start of a 206 answer's range: `Content-Range: bytes 100-999/1000` → 100. */
const rangeStart = (response: Response) =>
  Number(/^bytes (\d+)-/.exec(response.headers.get("content-range") ?? "")?.[1] ?? Number.NaN);

function totalOf(response: Response, offset: number): number | null {
  const fromRange = /\/(\d+)\s*$/.exec(response.headers.get("content-range") ?? "")?.[1];
  if (response.status === 206 && fromRange) return Number(fromRange);
  const length = response.headers.get("content-length");
  return length !== null && /^\d+$/.test(length) ? offset + Number(length) : null;
}

/** One HTTP request: continues (206) or restarts (200) the partial file, hashing every byte written. */
export async function request(
  target: DownloadTarget,
  attempt: Attempt,
  hasher: Sha256,
  options: DownloadOptions,
): Promise<AttemptOutcome> {
  const idleMs = options.idleTimeoutMs ?? defaultIdleTimeoutMs;
  const stall = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stall.signal]) : stall.signal;
  let timer = setTimeout(() => stall.abort(), idleMs);
  const alive = () => {
    clearTimeout(timer);
    timer = setTimeout(() => stall.abort(), idleMs);
  };
  let offset = attempt.offset;
  let answered = false;
  try {
    const headers: Record<string, string> = offset > 0 ? { range: `bytes=${offset}-` } : {};
    const response = await fetch(target.url, { headers, signal, redirect: "follow" });
    answered = true;
    if (
      offset > 0 &&
      (response.status === 416 || (response.status === 206 && rangeStart(response) !== offset))
    ) {
      await response.body?.cancel();
      if (attempt.attempt > 0)
        throw failure(target, "download_failed", `${target.url} does not serve byte ranges.`);
      return "retry";
    }
    if (response.status !== 200 && !(response.status === 206 && offset > 0))
      throw httpError(target, response);
    if (response.status === 200 && offset > 0) {
      // The server ignored the Range header and sent the whole file: start over with it.
      offset = 0;
      hasher = newSha256();
    }
    const total = totalOf(response, offset);
    if (attempt.expected !== undefined && total !== null && total !== attempt.expected) {
      await response.body?.cancel();
      removeFile(attempt.partial);
      throw failure(
        target,
        "size_mismatch",
        `${target.url} offers ${total} bytes, not the ${attempt.expected} expected. The partial download was deleted.`,
        { expectedBytes: attempt.expected, offeredBytes: total },
      );
    }
    const limit = attempt.expected ?? total ?? Number.POSITIVE_INFINITY;
    await write(response, { ...attempt, offset }, { hasher, total, limit, alive, options });
    return { hasher, resumedFrom: offset };
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (error instanceof AppError) throw error;
    if (isStorageFull(error)) {
      throw storageFull(dirname(attempt.partial), error, {
        outcome: "the download stopped",
        fix: "free space on it and pull again: the partial download is kept and resumes",
      });
    }
    const kept = "The partial download is kept: pull again to resume.";
    if (stall.signal.aborted) {
      throw failure(target, "download_stalled", `${target.url} sent nothing for ${idleMs / 1000} s. ${kept}`);
    }
    const reason = reasonOf(error);
    if (!answered) {
      // The runtime's own words ("ECONNREFUSED: Unable to connect. Is the computer able to access
      // the url?") mean nothing to a person: the cause in a few plain ones.
      // Nothing arrived: no connection (offline, no DNS, a firewall), so nothing is kept either.
      const host = new URL(target.url).host;
      throw failure(
        target,
        "download_failed",
        `svc could not reach ${host} (${plainNetworkReason(error)}). This machine may be offline or ${host} blocked; ` +
          "without a download, dictate with PocketSphinx (stt_engine sphinx), a remote server, " +
          "or a model file copied here and imported with `svc models import FILE`.",
        { reachable: false },
      );
    }
    throw failure(
      target,
      "download_interrupted",
      `The download from ${target.url} broke off: ${reason}. ${kept}`,
    );
  } finally {
    clearTimeout(timer);
  }
}

interface Sink {
  hasher: Sha256;
  total: number | null;
  limit: number;
  alive: () => void;
  options: DownloadOptions;
}

async function write(response: Response, attempt: Attempt, sink: Sink): Promise<void> {
  const out = await open(attempt.partial, attempt.offset > 0 ? "a" : "w");
  const started = performance.now();
  let received = attempt.offset;
  let overflow = false;
  try {
    for await (const chunk of response.body ?? []) {
      sink.alive();
      if (received + chunk.byteLength > sink.limit) {
        overflow = true;
        break;
      }
      await out.write(chunk);
      sink.hasher.update(chunk);
      received += chunk.byteLength;
      const seconds = (performance.now() - started) / 1000;
      sink.options.onProgress?.({
        receivedBytes: received,
        totalBytes: sink.total,
        bytesPerSecond: seconds > 0 ? Math.round((received - attempt.offset) / seconds) : 0,
        resumedFrom: attempt.offset,
      });
    }
    await out.sync();
  } finally {
    await out.close();
  }
  if (overflow) {
    removeFile(attempt.partial);
    throw new AppError(
      "size_mismatch",
      `The server sent more than ${sink.limit} bytes. The partial download was deleted.`,
    );
  }
  if (sink.total !== null && received < sink.total) {
    throw new Error(`the connection closed after ${received} of ${sink.total} bytes`);
  }
}

/** What to fetch and what the bytes must be. Without `sha256` only the size (if given) and header are checked. */
export interface DownloadTarget {
  id: string;
  url: string;
  sizeBytes?: number;
  sha256?: string;
}

export interface DownloadOptions {
  signal?: AbortSignal;
  onProgress?: (progress: DownloadProgress) => void;
  /** The download fails (keeping its partial file) when no byte arrives for this long. */
  idleTimeoutMs?: number;
}

export interface DownloadProgress {
  receivedBytes: number;
  totalBytes: number | null;
  /** Average over this connection, so a resumed download does not count the bytes it already had. */
  bytesPerSecond: number;
  resumedFrom: number;
}

/** Why a connection failed, in plain words, from the error's code; the runtime's message else. */
export function plainNetworkReason(error: unknown): string {
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
  const plain: Record<string, string> = {
    ECONNREFUSED: "nothing answered there",
    ConnectionRefused: "nothing answered there",
    ENOTFOUND: "its name could not be looked up",
    EAI_AGAIN: "its name could not be looked up",
    ETIMEDOUT: "it did not answer in time",
    ECONNRESET: "the connection was cut",
    ENETUNREACH: "no network route leads there",
    EHOSTUNREACH: "no network route leads there",
    UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "its certificate is not one this machine trusts",
    CERT_HAS_EXPIRED: "its certificate has expired",
  };
  return plain[code] ?? reasonOf(error);
}
