import type { Context, MiddlewareHandler } from "hono";
import { AppError } from "../errors.ts";
import type { AppEnv } from "./types.ts";

/** Which limit a route's body gets: raw uploads, table and data imports, or everything else (JSON). */
export type BodyKind = "upload" | "import" | "json";

/** The bounds on request bodies (settings in brackets; see docs/configuration.md). */
export interface BodyLimits {
  /** Bytes for audio uploads and plugin routes [SVC_MAX_BODY_SIZE]. */
  maxUploadBytes: number;
  /** Bytes for imports [SVC_MAX_IMPORT_SIZE]. */
  maxImportBytes: number;
  /** Bytes for every other route [SVC_MAX_JSON_SIZE]. */
  maxJsonBytes: number;
  /** A body must have arrived in full this long after the request did [SVC_BODY_TIMEOUT_MS]. */
  timeoutMs: number;
  /** Bytes per second a body must keep up over each `rateWindowMs`; 0 turns it off [SVC_BODY_MIN_RATE]. */
  minBytesPerSecond: number;
  /** Upload and import bodies received at once; one more is 503 busy [SVC_MAX_UPLOADS]. */
  maxConcurrent: number;
  /**
   * JSON bodies received at once, apart from the uploads: a flood of uploads never blocks a
   * settings change [SVC_MAX_JSON_BODIES].
   */
  maxJsonConcurrent: number;
  /** How long the rate is measured over. Default 10 s; tests shorten it. */
  rateWindowMs?: number;
}

const settingOf: Record<BodyKind, string> = {
  upload: "SVC_MAX_BODY_SIZE",
  import: "SVC_MAX_IMPORT_SIZE",
  json: "SVC_MAX_JSON_SIZE",
};

// The answer is sent while the client may still be sending: the rest is not read, so the
// connection must end with it.
const closing = { connection: "close" };

const tooLarge = (kind: BodyKind, limit: number) =>
  new AppError(
    "payload_too_large",
    `The request body is larger than ${limit} bytes (${settingOf[kind]}); send a smaller one.`,
    { details: { limit, setting: settingOf[kind] }, headers: closing },
  );

/** Each pool of bodies received at once, and the variable that sizes it. */
type Pool = "uploads" | "json";
const poolOf = (kind: BodyKind): Pool => (kind === "json" ? "json" : "uploads");
const poolSetting: Record<Pool, string> = { uploads: "SVC_MAX_UPLOADS", json: "SVC_MAX_JSON_BODIES" };

const busy = (pool: Pool, limit: number, retryAfterSeconds: number) =>
  new AppError(
    "busy",
    `svc is already receiving ${limit} ${pool === "json" ? "JSON" : "upload"} bodies (${poolSetting[pool]}); retry in a few seconds.`,
    {
      details: { limit, setting: poolSetting[pool] },
      headers: { ...closing, "Retry-After": String(retryAfterSeconds) },
    },
  );

/**
 * Reads every request body before the route runs, within its route's size limit, a deadline and a
 * minimum rate, and at most `maxConcurrent` uploads and imports and `maxJsonConcurrent` JSON bodies
 * at once. Bun's idle timeout restarts on every byte, so
 * a body trickling a byte every few seconds, or announced and never sent, would hold its
 * connection (a file descriptor, a buffer) forever; here it is cut with 408 `request_timeout`.
 * The route then reads the buffered body as usual.
 */
export function createBodyGuard(
  limits: BodyLimits,
  kindOf: (method: string, path: string) => BodyKind,
): MiddlewareHandler<AppEnv> {
  const windowMs = limits.rateWindowMs ?? 10_000;
  const retryAfter = Math.max(1, Math.ceil(windowMs / 1000));
  const maxBytesOf: Record<BodyKind, number> = {
    upload: limits.maxUploadBytes,
    import: limits.maxImportBytes,
    json: limits.maxJsonBytes,
  };
  const receiving: Record<Pool, number> = { uploads: 0, json: 0 };
  const maxOf: Record<Pool, number> = { uploads: limits.maxConcurrent, json: limits.maxJsonConcurrent };
  return async (c, next) => {
    const request = c.req.raw;
    if (request.body === null) return next();
    const kind = kindOf(c.req.method, c.req.path);
    const maxBytes = maxBytesOf[kind];
    const declared = request.headers.has("transfer-encoding") ? null : request.headers.get("content-length");
    // Refused from the header alone, before a byte is read or a slot taken.
    if (declared !== null && Number(declared) > maxBytes) throw tooLarge(kind, maxBytes);
    const pool = poolOf(kind);
    if (receiving[pool] >= maxOf[pool]) throw busy(pool, maxOf[pool], retryAfter);
    receiving[pool] += 1;
    let body: Uint8Array<ArrayBuffer>;
    try {
      const expected = declared === null ? null : Number(declared);
      body = await readBody(request.body, { ...limits, windowMs, maxBytes, kind, expected });
    } finally {
      receiving[pool] -= 1;
    }
    handOn(c, request, body);
    return next();
  };
}

/**
 * Gives the route the buffered body without copying it: a copy of a large body is tens of
 * milliseconds in which nothing else runs. Hono's body readers (`c.req.arrayBuffer()`, `json()`,
 * `text()`) start from the buffer itself; `c.req.raw` (which plugin code may read) gets it as a
 * one-chunk stream, where a Request built from the bytes would copy them at once.
 */
function handOn(c: Context<AppEnv>, request: Request, body: Uint8Array<ArrayBuffer>): void {
  // Hono keeps a promise per reader there (its type says otherwise) and derives the others from it.
  (c.req.bodyCache as { arrayBuffer?: Promise<ArrayBuffer> }).arrayBuffer = Promise.resolve(body.buffer);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(body);
      controller.close();
    },
  });
  c.req.raw = new Request(request, { body: stream });
}

interface ReadOptions {
  maxBytes: number;
  /** The declared Content-Length: the buffer is allocated once and filled as chunks come. */
  expected: number | null;
  kind: BodyKind;
  timeoutMs: number;
  minBytesPerSecond: number;
  windowMs: number;
}

/** The whole body, or an AppError: 413 past `maxBytes`, 408 past the deadline or under the rate. */
async function readBody(
  stream: ReadableStream<Uint8Array>,
  options: ReadOptions,
): Promise<Uint8Array<ArrayBuffer>> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  // Filled as the bytes arrive, so no one copy of the whole body holds the event loop at the end.
  let filled = options.expected === null ? null : new Uint8Array(options.expected);
  let received = 0;
  let failure: AppError | undefined;
  const fail = (error: AppError) => {
    failure ??= error;
    // Ends a pending read (done), also when no byte ever arrives.
    reader.cancel().catch(() => {});
  };
  const deadline = setTimeout(() => fail(timedOut(options.timeoutMs)), options.timeoutMs);
  const perWindow = (options.minBytesPerSecond * options.windowMs) / 1000;
  let atLastCheck = 0;
  const rate =
    perWindow > 0
      ? setInterval(() => {
          if (received - atLastCheck < perWindow) fail(tooSlow(options.minBytesPerSecond, options.windowMs));
          atLastCheck = received;
        }, options.windowMs)
      : undefined;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (failure) throw failure;
      if (done) break;
      if (received + value.byteLength > options.maxBytes) {
        fail(tooLarge(options.kind, options.maxBytes));
        throw failure;
      }
      if (filled && received + value.byteLength > filled.byteLength) {
        // More than was declared (Bun does not let that happen): on in chunks.
        chunks.push(filled.subarray(0, received));
        filled = null;
      }
      if (filled) filled.set(value, received);
      else chunks.push(value);
      received += value.byteLength;
    }
  } finally {
    clearTimeout(deadline);
    clearInterval(rate);
  }
  if (filled) return received === filled.byteLength ? filled : filled.slice(0, received);
  return concat(chunks, received);
}

/** The chunks as one buffer whose ArrayBuffer is exactly the body (what Hono's readers hand out). */
function concat(chunks: Uint8Array[], length: number): Uint8Array<ArrayBuffer> {
  const only = chunks[0];
  if (chunks.length === 1 && only && only.byteOffset === 0 && only.byteLength === only.buffer.byteLength)
    return only as Uint8Array<ArrayBuffer>;
  const joined = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    joined.set(chunk, at);
    at += chunk.byteLength;
  }
  return joined;
}

const timedOut = (limitMs: number) =>
  new AppError(
    "request_timeout",
    `The request body did not arrive within ${limitMs} ms (SVC_BODY_TIMEOUT_MS); send it again on a faster link.`,
    { details: { limitMs, setting: "SVC_BODY_TIMEOUT_MS" }, headers: closing },
  );

const tooSlow = (bytesPerSecond: number, windowMs: number) =>
  new AppError(
    "request_timeout",
    `The request body arrived slower than ${bytesPerSecond} bytes per second over ${windowMs} ms (SVC_BODY_MIN_RATE); send it again on a faster link.`,
    { details: { minBytesPerSecond: bytesPerSecond, setting: "SVC_BODY_MIN_RATE" }, headers: closing },
  );
