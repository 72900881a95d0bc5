import { AppError } from "../errors.ts";

// The Wyoming protocol's framing (OHF-Voice/wyoming, README "Format" and wyoming/event.py): a JSON
// header line `{"type","data"?,"data_length"?,"payload_length"?,"version"?}\n`, then `data_length`
// bytes of JSON merged over the header's `data`, then `payload_length` bytes of payload (audio).

/** One event as it travels: its type, its data (header and data bytes merged), its payload. */
export interface WyomingEvent {
  type: string;
  data: Record<string, unknown>;
  payload: Uint8Array | null;
  /** Its bytes on the wire: the header line, the data and the payload. */
  size: number;
}

/** What one event may be: every size a header declares is checked against these first. */
export interface FrameLimits {
  maxHeaderBytes: number;
  maxDataBytes: number;
  maxPayloadBytes: number;
}

/**
 * The protocol version svc writes in each header, as the Python library writes its own: the
 * release whose event definitions (asr.py, audio.py, info.py) svc was checked against.
 */
export const WYOMING_VERSION = "1.9.0";

const NEWLINE = 0x0a;
const encoder = new TextEncoder();
const utf8 = new TextDecoder("utf-8", { fatal: true });

interface Header {
  type: string;
  data: Record<string, unknown>;
  dataLength: number;
  payloadLength: number;
  /** The header line's bytes, its newline included. */
  lineBytes: number;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function parseJson(bytes: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(utf8.decode(bytes));
  } catch {
    throw new AppError("invalid_json", `The ${what} is not UTF-8 JSON.`);
  }
}

/** A declared size: absent or null is none; anything but a whole number within `max` is refused. */
function declaredSize(value: unknown, field: string, max: number, setting: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new AppError("invalid_request", `${field} must be a whole number of bytes, 0 or more.`);
  }
  if (value > max) {
    throw new AppError("payload_too_large", `${field} ${value} is over ${setting} (${max}).`);
  }
  return value;
}

function readHeader(line: Uint8Array, limits: FrameLimits): Header {
  const lineBytes = line.length + 1;
  const json = parseJson(line, "header line");
  if (!isObject(json)) throw new AppError("invalid_request", "The header line must be a JSON object.");
  const { type, data } = json;
  if (typeof type !== "string" || type === "") {
    throw new AppError("invalid_request", 'The header must name the event: {"type":"…"}.');
  }
  if (data !== undefined && data !== null && !isObject(data)) {
    throw new AppError("invalid_request", "The header's data must be a JSON object.");
  }
  return {
    type,
    data: data ?? {},
    lineBytes,
    dataLength: declaredSize(
      json.data_length,
      "data_length",
      limits.maxDataBytes,
      "SVC_WYOMING_MAX_DATA_SIZE",
    ),
    payloadLength: declaredSize(
      json.payload_length,
      "payload_length",
      limits.maxPayloadBytes,
      "SVC_WYOMING_MAX_PAYLOAD_SIZE",
    ),
  };
}

/**
 * Reads events from a byte stream split anywhere: push each chunk as it arrives and get the events
 * it completed. Memory follows the bytes that arrived, never a size a header declares; anything
 * malformed throws an AppError (the stream cannot be resynchronised after it).
 */
export function createEventReader(limits: () => FrameLimits) {
  let stage: "header" | "data" | "payload" = "header";
  let parts: Uint8Array[] = [];
  let held = 0;
  let header: Header | null = null;
  let current: FrameLimits | null = null;

  const take = (bytes: Uint8Array) => {
    // A copy: the socket may reuse the buffer it handed over.
    if (bytes.length > 0) parts.push(bytes.slice());
    held += bytes.length;
  };
  const drain = (): Uint8Array => {
    const joined = parts.length === 1 && parts[0] ? parts[0] : Buffer.concat(parts);
    parts = [];
    held = 0;
    return joined;
  };

  /** The current header's data is in: on to its payload, or the event is complete. */
  function advance(events: WyomingEvent[], payload: Uint8Array | null): void {
    if (!header) return;
    if (stage === "data" && header.payloadLength > 0) {
      stage = "payload";
      return;
    }
    const size = header.lineBytes + header.dataLength + header.payloadLength;
    events.push({ type: header.type, data: header.data, payload, size });
    header = null;
    stage = "header";
  }

  return {
    /** Drops what is held of an event being read (the connection is over). */
    clear(): void {
      parts = [];
      held = 0;
      header = null;
      stage = "header";
    },
    /** True between an event's first byte and its last (a stream that ends here was cut short). */
    get midEvent(): boolean {
      return stage !== "header" || held > 0;
    },
    push(chunk: Uint8Array): WyomingEvent[] {
      const events: WyomingEvent[] = [];
      let at = 0;
      while (at < chunk.length) {
        if (stage === "header") {
          // Each event is read under the settings as they are when it begins.
          if (held === 0 || !current) current = limits();
          const newline = chunk.indexOf(NEWLINE, at);
          const end = newline < 0 ? chunk.length : newline;
          if (held + end - at > current.maxHeaderBytes) {
            throw new AppError(
              "payload_too_large",
              `A header line is longer than SVC_WYOMING_MAX_HEADER_SIZE (${current.maxHeaderBytes}).`,
            );
          }
          take(chunk.subarray(at, end));
          if (newline < 0) break;
          at = newline + 1;
          header = readHeader(drain(), current);
          stage = header.dataLength > 0 ? "data" : "payload";
          if (header.dataLength === 0 && header.payloadLength === 0) advance(events, null);
          continue;
        }
        if (!header) throw new Error("no header for the bytes that follow it");
        const due = (stage === "data" ? header.dataLength : header.payloadLength) - held;
        const piece = chunk.subarray(at, at + due);
        take(piece);
        at += piece.length;
        if (held < (stage === "data" ? header.dataLength : header.payloadLength)) break;
        if (stage === "data") {
          const data = parseJson(drain(), "event's data");
          if (!isObject(data))
            throw new AppError("invalid_request", "An event's data must be a JSON object.");
          header.data = { ...header.data, ...data };
          advance(events, null);
        } else {
          advance(events, drain());
        }
      }
      return events;
    },
  };
}

/**
 * One event as bytes, as the Python library writes it: the header line with the version and the
 * lengths, the data as its own JSON bytes (only when there is some), then the payload.
 */
export function encodeEvent(type: string, data?: Record<string, unknown>, payload?: Uint8Array): Uint8Array {
  const header: Record<string, unknown> = { type, version: WYOMING_VERSION };
  const dataBytes = data && Object.keys(data).length > 0 ? encoder.encode(JSON.stringify(data)) : null;
  if (dataBytes) header.data_length = dataBytes.length;
  if (payload && payload.length > 0) header.payload_length = payload.length;
  const line = encoder.encode(`${JSON.stringify(header)}\n`);
  return Buffer.concat([line, ...(dataBytes ? [dataBytes] : []), ...(payload?.length ? [payload] : [])]);
}
