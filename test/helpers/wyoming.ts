// A Wyoming client written from the protocol's description (OHF-Voice/wyoming README, "Format"),
// not from svc's reader, so a framing mistake on either side shows: it writes events as the Python
// library's async_write_event does (a header line with type, version and the lengths; the data as
// its own JSON bytes; then the payload), and reads them back the same way. Plus svc's listener
// over a test app, started as main.ts starts it.
import { afterEach } from "bun:test";
import type { Socket } from "bun";
import type { CidrRange } from "../../src/addresses.ts";
import { createLiveDriver } from "../../src/dictation/live/driver.ts";
import { defaultOperatorLimits, liveDoors } from "../../src/dictation/live/limits.ts";
import type { Transcriber } from "../../src/dictation/transcriber.ts";
import { describeSvc, requestedModel } from "../../src/wyoming/info.ts";
import { wyomingLimits } from "../../src/wyoming/limits.ts";
import { createWyomingServer, type WyomingServer } from "../../src/wyoming/server.ts";
import { createTestApp, type TestApp, type TestAppOptions } from "./app.ts";

export interface ReceivedEvent {
  type: string;
  data: Record<string, unknown>;
  payload: Uint8Array | null;
  /** The header line as it came, parsed. */
  header: Record<string, unknown>;
}

export interface WyomingClient {
  events: ReceivedEvent[];
  /** Writes one event as the Python library does. */
  send(type: string, data?: Record<string, unknown>, payload?: Uint8Array): void;
  /** Writes bytes as they are (malformed headers, lies). */
  raw(bytes: Uint8Array | string): void;
  /** The first event of this type, received or still to come (rejects when the connection closes first). */
  next(type: string): Promise<ReceivedEvent>;
  /**
   * The next event in order, whatever its type, or null once the connection is closed: the
   * `wyoming` library's `AsyncTcpClient.read_event`.
   */
  read(): Promise<ReceivedEvent | null>;
  /** Resolves when svc closes the connection (or it is closed here). */
  closed: Promise<void>;
  isClosed(): boolean;
  /** Closes the write side only, as a client that has said everything. */
  halfClose(): void;
  close(): void;
  /** Drops the connection at once (a reset), as a client that crashed or lost the network. */
  abort(): void;
}

const encoder = new TextEncoder();

/** One event as wyoming/event.py's async_write_event writes it. */
export function wyomingBytes(type: string, data?: Record<string, unknown>, payload?: Uint8Array): Uint8Array {
  const header: Record<string, unknown> = { type, version: "1.9.0" };
  const dataBytes = data && Object.keys(data).length > 0 ? encoder.encode(JSON.stringify(data)) : null;
  if (dataBytes) header.data_length = dataBytes.length;
  if (payload && payload.length > 0) header.payload_length = payload.length;
  const parts: Uint8Array[] = [encoder.encode(`${JSON.stringify(header)}\n`)];
  if (dataBytes) parts.push(dataBytes);
  if (payload && payload.length > 0) parts.push(payload);
  return Buffer.concat(parts);
}

/** Reads events out of the bytes received so far; leaves an unfinished one in place. */
function parseEvents(buffer: Uint8Array): { events: ReceivedEvent[]; rest: Uint8Array } {
  const events: ReceivedEvent[] = [];
  let at = 0;
  for (;;) {
    const newline = buffer.indexOf(0x0a, at);
    if (newline < 0) break;
    const header = JSON.parse(Buffer.from(buffer.subarray(at, newline)).toString("utf8"));
    const dataLength = Number(header.data_length ?? 0);
    const payloadLength = Number(header.payload_length ?? 0);
    const end = newline + 1 + dataLength + payloadLength;
    if (end > buffer.length) break;
    const extra =
      dataLength > 0
        ? JSON.parse(Buffer.from(buffer.subarray(newline + 1, newline + 1 + dataLength)).toString("utf8"))
        : {};
    events.push({
      type: header.type,
      data: { ...(header.data ?? {}), ...extra },
      payload: payloadLength > 0 ? buffer.slice(newline + 1 + dataLength, end) : null,
      header,
    });
    at = end;
  }
  return { events, rest: buffer.slice(at) };
}

export async function connectWyoming(port: number): Promise<WyomingClient> {
  const events: ReceivedEvent[] = [];
  const waiting: { type: string; resolve: (event: ReceivedEvent) => void; reject: (e: Error) => void }[] = [];
  let buffer: Uint8Array = new Uint8Array(0);
  let closed = false;
  /** `read`'s place in `events`, and a reader waiting for the next one. */
  let cursor = 0;
  let reader: (() => void) | null = null;
  const done = Promise.withResolvers<void>();
  const socket: Socket<undefined> = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    allowHalfOpen: true,
    socket: {
      binaryType: "uint8array",
      data(_socket, chunk) {
        buffer = Buffer.concat([buffer, chunk]);
        const parsed = parseEvents(buffer);
        buffer = parsed.rest;
        if (parsed.events.length > 0) reader?.();
        for (const event of parsed.events) {
          events.push(event);
          for (const waiter of waiting.filter((w) => w.type === event.type)) {
            waiting.splice(waiting.indexOf(waiter), 1);
            waiter.resolve(event);
          }
        }
      },
      end(s) {
        s.end();
      },
      close() {
        closed = true;
        reader?.();
        for (const waiter of waiting.splice(0)) {
          waiter.reject(
            new Error(`closed before ${waiter.type}; got ${events.map((e) => e.type).join(", ")}`),
          );
        }
        done.resolve();
      },
    },
  });
  const write = (bytes: Uint8Array) => {
    // Small writes go out whole on loopback; a short write would be a test bug, so it is loud.
    const written = socket.write(bytes);
    if (written >= 0 && written < bytes.length) socket.write(bytes.subarray(written));
  };
  return {
    events,
    send: (type, data, payload) => write(wyomingBytes(type, data, payload)),
    raw: (bytes) => write(typeof bytes === "string" ? encoder.encode(bytes) : bytes),
    next(type) {
      const seen = events.find((event) => event.type === type);
      if (seen) return Promise.resolve(seen);
      if (closed) return Promise.reject(new Error(`closed before ${type}`));
      return new Promise((resolve, reject) => waiting.push({ type, resolve, reject }));
    },
    async read() {
      while (cursor >= events.length && !closed) {
        await new Promise<void>((resolve) => {
          reader = () => {
            reader = null;
            resolve();
          };
        });
      }
      return cursor < events.length ? (events[cursor++] ?? null) : null;
    },
    closed: done.promise,
    isClosed: () => closed,
    halfClose: () => socket.shutdown(),
    close: () => socket.end(),
    abort: () => socket.terminate(),
  };
}

/** 16-bit little-endian PCM, as Home Assistant streams it. */
export function pcm16(pcm: Float32Array): Uint8Array<ArrayBuffer> {
  const out = new Int16Array(pcm.length);
  for (let i = 0; i < pcm.length; i++)
    out[i] = Math.max(-32768, Math.min(32767, Math.round((pcm[i] ?? 0) * 32768)));
  return new Uint8Array(out.buffer);
}

/** Streams `bytes` as audio-chunk events of `chunkBytes`, at real-time pace when `bytesPerSecond` is given. */
export async function streamChunks(
  client: WyomingClient,
  bytes: Uint8Array,
  format: { rate: number; width: number; channels: number },
  chunkBytes: number,
  bytesPerSecond?: number,
): Promise<void> {
  const started = performance.now();
  for (let at = 0; at < bytes.length; at += chunkBytes) {
    client.send("audio-chunk", { ...format, timestamp: null }, bytes.subarray(at, at + chunkBytes));
    if (bytesPerSecond) {
      const due = started + ((at + chunkBytes) / bytesPerSecond) * 1000;
      const wait = due - performance.now();
      if (wait > 0) await Bun.sleep(wait);
    }
  }
}

export interface WyomingTestServer {
  app: TestApp;
  server: WyomingServer;
  port: number;
  stop(): Promise<void>;
}

/** svc's Wyoming listener on a free loopback port over a fresh test app. */
export function serveWyoming(
  options: TestAppOptions & {
    wrap?: (transcriber: Transcriber) => Transcriber;
    /** How long an event's byte rate is measured over (the listener's default is 5 s). */
    rateWindowMs?: number;
    /** Where it listens; default 127.0.0.1. */
    host?: string;
    /** SVC_WYOMING_ALLOW; default: every client. */
    allow?: readonly CidrRange[];
  } = {},
): WyomingTestServer {
  const { wrap, ...appOptions } = options;
  const app = createTestApp(appOptions);
  const operator = { ...defaultOperatorLimits, ...options.operator };
  const sources = {
    version: "0.0.0-test",
    url: "http://127.0.0.1:4649",
    settings: app.services.settings,
    stores: { whisper: app.models.store },
  };
  const transcriber = app.dictation.transcriber;
  const server = createWyomingServer({
    live: createLiveDriver({
      transcriber: wrap ? wrap(transcriber) : transcriber,
      vad: app.dictation.vad,
      door: liveDoors.wyoming,
      settings: app.services.settings,
      operator,
    }),
    limits: wyomingLimits(app.services.settings, operator),
    info: () => describeSvc(sources),
    model: (name, language) => requestedModel(sources, name, language),
    logger: app.logger,
    rateWindowMs: options.rateWindowMs,
    allow: options.allow,
  });
  const listener = server.listen(options.host ?? "127.0.0.1", 0);
  return {
    app,
    server,
    port: listener.port,
    async stop() {
      server.stop();
    },
  };
}

/**
 * The listener tests' server: `serve(settings, options)` starts `serveWyoming` with the sphinx
 * engine and these settings, and the server stops after the test that started it.
 */
export function wyomingPerTest() {
  let served: WyomingTestServer | undefined;
  afterEach(async () => {
    await served?.stop();
    served = undefined;
  });
  return (settings: Record<string, unknown> = {}, options: Parameters<typeof serveWyoming>[0] = {}) => {
    const server = serveWyoming(options);
    server.app.services.settings.set("stt_engine", "sphinx");
    for (const [key, value] of Object.entries(settings)) server.app.services.settings.set(key, value);
    served = server;
    return server;
  };
}
