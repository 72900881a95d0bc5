// svc's app behind a real Bun.serve with its WebSockets as main.ts serves them, for the live
// dictation tests: GET /api/dictate needs a server to upgrade on.
import type { Server } from "bun";
import * as v from "valibot";
import { serverMessageSchema } from "../../src/dictation/live/protocol.ts";
import { socketHandler } from "../../src/http/sockets.ts";
import { createTestApp, type TestApp, type TestAppOptions } from "./app.ts";

export interface DictateServer {
  app: TestApp;
  port: number;
  /** ws://127.0.0.1:<port>/api/dictate */
  url: string;
  stop(): Promise<void>;
}

/** `options.wrap` wraps the transcriber the sessions use (a test watching the pieces it is asked for). */
export function serveDictation(options: TestAppOptions = {}): DictateServer {
  const app = createTestApp(options);
  const server: Server<unknown> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    routes: app.app.bunRoutes,
    fetch: app.app.fetch,
    websocket: socketHandler,
    development: false,
  });
  const port = server.port ?? 0;
  return {
    app,
    port,
    url: `ws://127.0.0.1:${port}/api/dictate`,
    async stop() {
      app.app.sockets.closeAll();
      await server.stop(true);
    },
  };
}

/** A message as the client reads it: loosely, for tests' field access; each is checked against the protocol. */
export type ServerMessage = Record<string, unknown> & { type: string };

/** A client of one live dictation: what the server said, and how it closed. */
export interface DictateClient {
  ws: WebSocket;
  messages: ServerMessage[];
  opened: Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  /** Resolves with the first message of this type (already received or still to come). */
  next(type: string): Promise<ServerMessage>;
  json(message: unknown): void;
}

export function connect(url: string, headers?: Record<string, string>): DictateClient {
  const ws = new WebSocket(url, headers ? ({ headers } as unknown as string[]) : undefined);
  ws.binaryType = "arraybuffer";
  const messages: ServerMessage[] = [];
  const waiting: { type: string; resolve: (message: ServerMessage) => void }[] = [];
  const opened = new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error("websocket error"));
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.onclose = (event) => resolve({ code: event.code, reason: event.reason });
  });
  let offProtocol: Error | undefined;
  ws.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as ServerMessage;
    // Every message the server sends must be one the published protocol describes: `next` fails otherwise.
    const checked = v.safeParse(serverMessageSchema, message);
    if (!checked.success) {
      offProtocol ??= new Error(`off-protocol message ${event.data}: ${v.summarize(checked.issues)}`);
    }
    messages.push(message);
    for (const waiter of waiting.filter((w) => w.type === message.type)) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve(message);
    }
  };
  return {
    ws,
    messages,
    opened,
    closed,
    async next(type) {
      const seen = messages.find((message) => message.type === type);
      const message =
        seen ?? (await new Promise<ServerMessage>((resolve) => waiting.push({ type, resolve })));
      if (offProtocol) throw offProtocol;
      return message;
    },
    json: (message) => ws.send(JSON.stringify(message)),
  };
}

/** 16-bit little-endian samples, as a browser's recorder sends them. */
export function toPcm16(pcm: Float32Array): Uint8Array<ArrayBuffer> {
  const out = new Int16Array(pcm.length);
  for (let i = 0; i < pcm.length; i++)
    out[i] = Math.max(-32768, Math.min(32767, Math.round((pcm[i] ?? 0) * 32768)));
  return new Uint8Array(out.buffer);
}

/** Sends `bytes` in frames of `frameBytes`, `pauseMs` apart, as a recorder would while someone speaks. */
export async function streamFrames(
  client: DictateClient,
  bytes: Uint8Array<ArrayBuffer>,
  frameBytes: number,
  pauseMs = 0,
): Promise<void> {
  for (let at = 0; at < bytes.length; at += frameBytes) {
    client.ws.send(bytes.subarray(at, at + frameBytes));
    if (pauseMs > 0) await Bun.sleep(pauseMs);
  }
}
