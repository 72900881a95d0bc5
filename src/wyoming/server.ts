import type { Socket, TCPSocketListener } from "bun";
import type { CidrRange } from "../addresses.ts";
import { AppError } from "../errors.ts";
import { wyomingAccepts } from "./allow.ts";
import { type Connection, type ConnectionDeps, createConnection } from "./connection.ts";

interface SocketData {
  connection: Connection | null;
  /** Bytes the kernel did not take yet, sent on `drain`, in order. */
  queued: Uint8Array[];
  queuedBytes: number;
  /** The connection asked not to read (a transcript is being made). */
  holding: boolean;
  /** Reading is paused now (holding, or too much unread). */
  paused: boolean;
  /** Ends a client that stays past the unread bound (wyoming_unread_timeout_seconds). */
  unreadTimer: ReturnType<typeof setTimeout> | undefined;
  closing: boolean;
  ended: boolean;
}

export interface WyomingServer {
  /** Starts listening; throws when the address cannot be bound (main.ts says why). */
  listen(hostname: string, port: number): TCPSocketListener<SocketData>;
  /** Connections now open. */
  readonly connections: number;
  /** Bytes of answers written to clients that they have not taken yet, over every connection. */
  readonly unreadBytes: number;
  /** Cancels every transcription, closes every connection and stops listening (shutdown). */
  stop(): void;
}

const fresh = (): SocketData => ({
  connection: null,
  queued: [],
  queuedBytes: 0,
  holding: false,
  paused: false,
  unreadTimer: undefined,
  closing: false,
  ended: false,
});

// A client that does not close its side after svc ended the connection is cut off after this.
const lingerMs = 2000;

/** Writes what the socket takes now and keeps the rest for `drain`: Bun's write is unbuffered. */
function flush(socket: Socket<SocketData>): void {
  const { queued } = socket.data;
  while (queued.length > 0) {
    const next = queued[0];
    if (!next) break;
    const written = socket.write(next);
    if (written < 0) {
      queued.length = 0;
      socket.data.queuedBytes = 0;
      return;
    }
    socket.data.queuedBytes -= Math.max(0, written);
    if (written < next.length) {
      queued[0] = next.subarray(written);
      return;
    }
    queued.shift();
  }
  if (socket.data.closing && !socket.data.ended) {
    socket.data.ended = true;
    socket.end();
    setTimeout(() => socket.terminate(), lingerMs).unref();
  }
}

/** The Wyoming listener (`SVC_WYOMING_PORT`): a TCP server whose connections each speak the protocol. */
export function createWyomingServer(
  deps: ConnectionDeps & {
    /** Client ranges accepted (SVC_WYOMING_ALLOW); default: every address. */
    allow?: readonly CidrRange[];
  },
): WyomingServer {
  const open = new Set<Socket<SocketData>>();
  let listener: TCPSocketListener<SocketData> | null = null;
  let counter = 0;

  const full = (socket: Socket<SocketData>) => socket.data.queuedBytes >= deps.limits().maxUnreadBytes;

  /**
   * Reads from the client only while neither the connection holds it (a transcript is being made)
   * nor its unread answers are past the bound: a client that does not read gets nothing more
   * read from it, so what svc holds for it stays bounded, and it is ended if it stays so.
   */
  function steer(socket: Socket<SocketData>): void {
    const data = socket.data;
    const over = full(socket);
    if (over && data.unreadTimer === undefined && !data.closing) {
      const { unreadTimeoutMs, maxUnreadBytes } = deps.limits();
      data.unreadTimer = setTimeout(() => {
        deps.logger.warn("wyoming client does not read its answers; disconnected", {
          unreadBytes: data.queuedBytes,
          maxUnreadBytes,
        });
        data.connection?.gone();
        socket.terminate();
      }, unreadTimeoutMs);
    } else if (!over && data.unreadTimer !== undefined) {
      clearTimeout(data.unreadTimer);
      data.unreadTimer = undefined;
    }
    const pause = data.holding || over;
    if (pause === data.paused) return;
    data.paused = pause;
    if (pause) socket.pause();
    else socket.resume();
  }

  /**
   * Makes room for a new client by ending the connection idle the longest (no audio open, no
   * transcript being made): only connections at work hold their place, so clients that connect
   * and ping cannot lock Home Assistant out. False when every connection is at work.
   */
  function evictIdle(maxConnections: number): boolean {
    let oldest: { socket: Socket<SocketData>; idleMs: number } | undefined;
    for (const socket of open) {
      const idleMs = socket.data.connection?.idleFor();
      if (idleMs !== undefined && (!oldest || idleMs > oldest.idleMs)) oldest = { socket, idleMs };
    }
    if (!oldest) return false;
    open.delete(oldest.socket);
    oldest.socket.data.connection?.refuse(
      new AppError(
        "busy",
        `${maxConnections} Wyoming connections are open (SVC_WYOMING_MAX_CONNECTIONS) and a new client needed one; this idle connection gave way.`,
      ),
    );
    return true;
  }

  const wire = (socket: Socket<SocketData>) => ({
    write(bytes: Uint8Array) {
      socket.data.queued.push(bytes);
      socket.data.queuedBytes += bytes.length;
      if (socket.data.queued.length === 1) flush(socket);
      steer(socket);
    },
    writable: () => !full(socket),
    pause() {
      socket.data.holding = true;
      steer(socket);
    },
    resume() {
      socket.data.holding = false;
      steer(socket);
    },
    close() {
      if (socket.data.closing) return;
      socket.data.closing = true;
      // Nothing more is read from a connection svc is ending (a flood would go on arriving).
      socket.data.holding = true;
      steer(socket);
      flush(socket);
      // A client that does not read its last answers is not waited for past the unread timeout.
      if (!socket.data.ended) setTimeout(() => socket.terminate(), deps.limits().unreadTimeoutMs).unref();
    },
  });

  return {
    listen(hostname, port) {
      listener = Bun.listen<SocketData>({
        hostname,
        port,
        // One port, one server: without it a second svc could bind the same port too.
        exclusive: true,
        // A client that half-closes after audio-stop still gets its transcript.
        allowHalfOpen: true,
        data: fresh(),
        socket: {
          binaryType: "uint8array",
          open(socket) {
            socket.data = fresh();
            // Wyoming carries no credentials: a client outside SVC_WYOMING_ALLOW is closed at accept.
            if (deps.allow && !wyomingAccepts(socket.remoteAddress, deps.allow)) {
              deps.logger.warn("wyoming connection refused: address not in SVC_WYOMING_ALLOW", {
                address: socket.remoteAddress,
              });
              socket.data.ended = true;
              socket.terminate();
              return;
            }
            const id = `wyoming-${++counter}`;
            const connection = createConnection(id, wire(socket), deps);
            const { maxConnections } = deps.limits();
            if (open.size >= maxConnections && !evictIdle(maxConnections)) {
              deps.logger.warn("wyoming connection refused: too many", { connection: id, maxConnections });
              connection.refuse(
                new AppError(
                  "busy",
                  `${maxConnections} Wyoming connections are transcribing (SVC_WYOMING_MAX_CONNECTIONS); retry shortly.`,
                ),
              );
              return;
            }
            socket.data.connection = connection;
            open.add(socket);
            deps.logger.debug("wyoming connection opened", { connection: id, remote: socket.remoteAddress });
          },
          data(socket, chunk) {
            socket.data.connection?.receive(chunk);
          },
          drain(socket) {
            const wasFull = full(socket);
            flush(socket);
            steer(socket);
            // Events read before the bound was reached are handled now that answers can leave.
            if (wasFull && !full(socket)) socket.data.connection?.writable();
          },
          end(socket) {
            socket.data.connection?.end();
          },
          close(socket) {
            open.delete(socket);
            socket.data.connection?.gone();
            socket.data.queued.length = 0;
            socket.data.queuedBytes = 0;
            clearTimeout(socket.data.unreadTimer);
          },
          error(socket, error) {
            deps.logger.warn("wyoming socket error", { error });
            socket.data.connection?.gone();
          },
        },
      });
      return listener;
    },
    get connections() {
      return open.size;
    },
    get unreadBytes() {
      let bytes = 0;
      for (const socket of open) bytes += socket.data.queuedBytes;
      return bytes;
    },
    stop() {
      listener?.stop(true);
      listener = null;
      for (const socket of open) {
        socket.data.connection?.gone();
        socket.terminate();
      }
      open.clear();
    },
  };
}
