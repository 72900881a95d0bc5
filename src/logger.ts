export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
  /**
   * The one line each request leaves (message "request", level info unless `level` says debug);
   * built for the hot path. `requestId` is a token (`[A-Za-z0-9._:-]`, as the request context
   * issues and accepts them), which needs no escaping in JSON.
   */
  request(requestId: string, method: string, path: string, status: number, ms: number, level?: "debug"): void;
  /** Writes the lines a batching logger holds (at exit); shared with its children. */
  flush(): void;
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LoggerOptions {
  level: LogLevel;
  /** `json`: one JSON object per line (production); `pretty`: readable lines (development). */
  format: "json" | "pretty";
  /** Receives one or more whole lines; stdout by default. */
  write?: (text: string) => void;
  /**
   * Gather lines for up to this many milliseconds and hand them to `write` together: under load,
   * a write per request costs more than the request. 0 (the default): each line is written at once.
   */
  batchMs?: number;
}

function plain(value: unknown): unknown {
  return value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;
}

function prettyValue(value: unknown): string {
  if (typeof value === "string") return /\s/.test(value) ? JSON.stringify(value) : value;
  if (value instanceof Error) return JSON.stringify(value.stack ?? value.message);
  return JSON.stringify(value);
}

// Formatting a date costs more than the rest of a log line; lines in the same millisecond share one.
let isoAt = -1;
let iso = "";
function isoTime(ms: number): string {
  if (ms !== isoAt) {
    isoAt = ms;
    iso = new Date(ms).toISOString();
  }
  return iso;
}

// Keys repeat on every line; their JSON form is computed once.
const quotedKeys = new Map<string, string>();
function quoteKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (quotedKeys.size < 1000) quotedKeys.set(key, quoted);
  }
  return quoted;
}

// Strings without quotes, backslashes, control characters or surrogates are their own JSON body.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what JSON must escape.
const needsEscape = /["\\\u0000-\u001f\ud800-\udfff]/;

function jsonValue(value: unknown): string {
  if (typeof value === "string") return needsEscape.test(value) ? JSON.stringify(value) : `"${value}"`;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return JSON.stringify(plain(value)) ?? "null";
}

function appendFields(line: string, source: LogFields | undefined): string {
  if (!source) return line;
  let out = line;
  for (const key in source) out += `,${quoteKey(key)}:${jsonValue(source[key])}`;
  return out;
}

function jsonLine(
  level: LogLevel,
  message: string,
  bound: LogFields | undefined,
  fields?: LogFields,
): string {
  // Built by hand: one JSON line per request is on the hot path.
  const head = `{"time":"${isoTime(Date.now())}","level":"${level}","msg":${JSON.stringify(message)}`;
  return `${appendFields(appendFields(head, bound), fields)}}\n`;
}

function prettyLine(
  level: LogLevel,
  message: string,
  bound: LogFields | undefined,
  fields?: LogFields,
): string {
  const extras = [bound, fields]
    .flatMap((source) => (source ? Object.entries(source) : []))
    .map(([key, value]) => `${key}=${prettyValue(value)}`)
    .join(" ");
  const time = new Date().toISOString().slice(11, 23);
  return `${time} ${level.toUpperCase().padEnd(5)} ${message}${extras ? ` ${extras}` : ""}\n`;
}

/** Batches hold at most this many lines; a full batch is written at once. */
const batchCapacity = 4096;

/** Hides anything shaped like an svc key in `text`: log lines and answers that echo a client. */
export const redactKeys = (text: string): string => text.replace(/svck_[A-Za-z0-9_-]+/g, "svck_…");

/**
 * Where a logger and its children send their lines. Unbatched, each line is written at once.
 * Batched, lines wait (in order) for up to `batchMs` and leave in one write. A request line waits
 * as its fields, not as a string: the request path stores five values, and the lines are formatted
 * together when the batch is written.
 */
class Output {
  readonly #write: (text: string) => void;
  readonly #batchMs: number;
  #count = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  // Entry i is a finished line (lines[i] !== undefined) or the fields of a request line.
  readonly #lines: (string | undefined)[] = [];
  readonly #ids: string[] = [];
  readonly #methods: string[] = [];
  readonly #paths: string[] = [];
  readonly #statuses = new Int32Array(batchCapacity);
  readonly #durations = new Float64Array(batchCapacity);
  readonly #times = new Float64Array(batchCapacity);

  constructor(write: (text: string) => void, batchMs: number) {
    this.#write = write;
    this.#batchMs = batchMs;
  }

  get batched(): boolean {
    return this.#batchMs > 0;
  }

  line(line: string): void {
    // A key that reached a message (pasted into a path, a setting, a plugin's log) is never written.
    const text = line.includes("svck_") ? redactKeys(line) : line;
    if (this.#batchMs <= 0) {
      this.#write(text);
      return;
    }
    this.#lines[this.#reserve()] = text;
  }

  /** Only when batched: a JSON request line, formatted when the batch is written. */
  request(requestId: string, method: string, path: string, status: number, ms: number): void {
    const i = this.#reserve();
    this.#lines[i] = undefined;
    this.#ids[i] = requestId;
    this.#methods[i] = method;
    this.#paths[i] = path;
    this.#statuses[i] = status;
    this.#durations[i] = ms;
    this.#times[i] = Date.now();
  }

  #reserve(): number {
    if (this.#count === batchCapacity) this.flush();
    if (this.#timer === undefined) this.#timer = setTimeout(() => this.flush(), this.#batchMs);
    return this.#count++;
  }

  flush(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const count = this.#count;
    if (count === 0) return;
    // Joined once at the end: cheaper than growing one string line by line.
    const text = new Array<string>(count);
    for (let i = 0; i < count; i++) {
      text[i] =
        this.#lines[i] ??
        requestLine(
          this.#times[i] ?? 0,
          this.#ids[i] ?? "",
          this.#methods[i] ?? "",
          this.#paths[i] ?? "",
          this.#statuses[i] ?? 0,
          this.#durations[i] ?? 0,
        );
    }
    this.#count = 0;
    // Let the strings go now rather than when their slots are reused.
    this.#lines.length = 0;
    this.#ids.length = 0;
    this.#methods.length = 0;
    this.#paths.length = 0;
    this.#write(text.join(""));
  }
}

// A request line's opening (time, level, message) is shared by the lines of one millisecond,
// and its middle (method, path, status) by consecutive requests to the same route.
let openingAt = -1;
let opening = "";
let middleKey = { method: "", path: "", status: -1 };
let middle = "";

/** The line `info("request", {requestId, method, path, status, ms})` writes, built directly. */
function requestLine(
  time: number,
  requestId: string,
  method: string,
  path: string,
  status: number,
  ms: number,
) {
  if (time !== openingAt) {
    openingAt = time;
    opening = `{"time":"${isoTime(time)}","level":"info","msg":"request","requestId":`;
  }
  if (method !== middleKey.method || path !== middleKey.path || status !== middleKey.status) {
    middleKey = { method, path, status };
    middle = `,"method":${jsonValue(method)},"path":${jsonValue(path)},"status":${status},"ms":`;
  }
  return `${opening}"${requestId}"${middle}${msText(ms)}}\n`;
}

const roundMs = (ms: number) => Math.round(ms * 100) / 100;

/** `String(roundMs(ms))` from integers: a quarter of the cost of printing a fraction. */
function msText(ms: number): string {
  const hundredths = Math.round(ms * 100);
  const whole = Math.trunc(hundredths / 100);
  const rest = hundredths - whole * 100;
  if (rest === 0) return `${whole}`;
  if (rest % 10 === 0) return `${whole}.${rest / 10}`;
  return rest < 10 ? `${whole}.0${rest}` : `${whole}.${rest}`;
}

class LineLogger implements Logger {
  readonly #threshold: number;
  readonly #options: LoggerOptions;
  readonly #bound: LogFields | undefined;
  readonly #out: Output;

  constructor(options: LoggerOptions, bound: LogFields | undefined, out: Output) {
    this.#options = options;
    this.#threshold = rank[options.level];
    this.#bound = bound;
    this.#out = out;
  }

  #emit(level: LogLevel, message: string, fields?: LogFields): void {
    if (rank[level] < this.#threshold) return;
    const format = this.#options.format === "json" ? jsonLine : prettyLine;
    this.#out.line(format(level, message, this.#bound, fields));
  }

  debug(message: string, fields?: LogFields) {
    this.#emit("debug", message, fields);
  }
  info(message: string, fields?: LogFields) {
    this.#emit("info", message, fields);
  }
  warn(message: string, fields?: LogFields) {
    this.#emit("warn", message, fields);
  }
  error(message: string, fields?: LogFields) {
    this.#emit("error", message, fields);
  }
  child(fields: LogFields): Logger {
    return new LineLogger(this.#options, this.#bound ? { ...this.#bound, ...fields } : fields, this.#out);
  }
  request(requestId: string, method: string, path: string, status: number, ms: number, level?: "debug") {
    if (rank[level ?? "info"] < this.#threshold) return;
    if (level !== undefined || this.#options.format !== "json" || this.#bound !== undefined) {
      this.#emit(level ?? "info", "request", { requestId, method, path, status, ms: roundMs(ms) });
    } else if (this.#out.batched) {
      this.#out.request(requestId, method, path, status, ms);
    } else {
      this.#out.line(requestLine(Date.now(), requestId, method, path, status, ms));
    }
  }
  flush() {
    this.#out.flush();
  }
}

export function createLogger(options: LoggerOptions): Logger {
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  return new LineLogger(options, undefined, new Output(write, options.batchMs ?? 0));
}

/** A logger that drops everything: for tests and CLI commands that print their own output. */
export const silentLogger: Logger = createLogger({ level: "error", format: "json", write: () => {} });
