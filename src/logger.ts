export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
  /** The one line each request leaves (level info, message "request"); built for the hot path. */
  request(requestId: string, method: string, path: string, status: number, ms: number): void;
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LoggerOptions {
  level: LogLevel;
  /** `json`: one JSON object per line (production); `pretty`: readable lines (development). */
  format: "json" | "pretty";
  write?: (line: string) => void;
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
let isoAt = 0;
let iso = "";
function now(): string {
  const ms = Date.now();
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
  const head = `{"time":"${now()}","level":"${level}","msg":${JSON.stringify(message)}`;
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

class LineLogger implements Logger {
  readonly #threshold: number;
  readonly #options: LoggerOptions;
  readonly #bound: LogFields | undefined;
  readonly #write: (line: string) => void;

  constructor(options: LoggerOptions, bound: LogFields | undefined, write: (line: string) => void) {
    this.#options = options;
    this.#threshold = rank[options.level];
    this.#bound = bound;
    this.#write = write;
  }

  #emit(level: LogLevel, message: string, fields?: LogFields): void {
    if (rank[level] < this.#threshold) return;
    const format = this.#options.format === "json" ? jsonLine : prettyLine;
    this.#write(format(level, message, this.#bound, fields));
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
    return new LineLogger(this.#options, this.#bound ? { ...this.#bound, ...fields } : fields, this.#write);
  }
  request(requestId: string, method: string, path: string, status: number, ms: number) {
    if (rank.info < this.#threshold) return;
    const rounded = Math.round(ms * 100) / 100;
    if (this.#options.format !== "json" || this.#bound !== undefined) {
      this.info("request", { requestId, method, path, status, ms: rounded });
      return;
    }
    // The same line jsonLine would write for these fields, without building a fields object.
    this.#write(
      `{"time":"${now()}","level":"info","msg":"request","requestId":${jsonValue(requestId)},"method":${jsonValue(method)},"path":${jsonValue(path)},"status":${status},"ms":${rounded}}\n`,
    );
  }
}

/**
 * Writes to stdout in batches: lines logged within 20 ms leave in one write (a write per request
 * costs more than the request). Flushed on exit, so nothing is lost.
 */
export function createStdoutWriter(): { write(line: string): void; flush(): void } {
  let buffer = "";
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (buffer === "") return;
    const out = buffer;
    buffer = "";
    process.stdout.write(out);
  };
  process.on("exit", flush);
  return {
    write(line) {
      buffer += line;
      if (buffer.length > 65_536) flush();
      else if (!scheduled) {
        // Under load, many requests end per loop turn; a short delay gathers them into one write.
        scheduled = true;
        setTimeout(flush, 20);
      }
    },
    flush,
  };
}

export function createLogger(options: LoggerOptions): Logger {
  return new LineLogger(options, undefined, options.write ?? ((line: string) => process.stdout.write(line)));
}

/** A logger that drops everything: for tests and CLI commands that print their own output. */
export const silentLogger: Logger = createLogger({ level: "error", format: "json", write: () => {} });
