export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LoggerOptions {
  level: LogLevel;
  /** `json`: one JSON object per line (production); `pretty`: readable lines (development). */
  format: "json" | "pretty";
  write?: (line: string) => void;
}

function errorFields(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] =
      value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;
  }
  return out;
}

function prettyValue(value: unknown): string {
  if (typeof value === "string") return /\s/.test(value) ? JSON.stringify(value) : value;
  if (value instanceof Error) return JSON.stringify(value.stack ?? value.message);
  return JSON.stringify(value);
}

export function createLogger(options: LoggerOptions, bound: LogFields = {}): Logger {
  const threshold = rank[options.level];
  const write = options.write ?? ((line: string) => process.stdout.write(line));
  const emit = (level: LogLevel, message: string, fields?: LogFields) => {
    if (rank[level] < threshold) return;
    const all = fields ? { ...bound, ...errorFields(fields) } : bound;
    if (options.format === "json") {
      write(`${JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...all })}\n`);
      return;
    }
    const extras = Object.entries(all)
      .map(([key, value]) => `${key}=${prettyValue(value)}`)
      .join(" ");
    const time = new Date().toISOString().slice(11, 23);
    write(`${time} ${level.toUpperCase().padEnd(5)} ${message}${extras ? ` ${extras}` : ""}\n`);
  };
  return {
    debug: (message, fields) => emit("debug", message, fields),
    info: (message, fields) => emit("info", message, fields),
    warn: (message, fields) => emit("warn", message, fields),
    error: (message, fields) => emit("error", message, fields),
    child: (fields) => createLogger(options, { ...bound, ...fields }),
  };
}

/** A logger that drops everything: for tests and CLI commands that print their own output. */
export const silentLogger: Logger = createLogger({ level: "error", format: "json", write: () => {} });
