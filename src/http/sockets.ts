import type { ServerWebSocket, WebSocketHandler } from "bun";
import type { Handler } from "hono";
import type { Principal } from "../access/principal.ts";
import { AppError } from "../errors.ts";
import { requestInfoOf } from "./request-info.ts";
import type { AppEnv } from "./types.ts";

// A WebSocket route declares its handlers where it is declared, as Hono's upgradeWebSocket does:
// the upgrade carries them in the socket's data, and Bun's one server-wide handler calls them.

/** One socket's handlers, made by its route for that socket. */
export interface SocketEvents {
  open?(ws: Socket): void;
  message?(ws: Socket, message: string | Buffer): void;
  close?(ws: Socket, code: number, reason: string): void;
}

/** What svc attaches to a socket it upgrades. */
export interface SocketData {
  requestId: string;
  events: SocketEvents;
  /** The key it was opened with (a Bearer key or the console's session); null for a trusted client. */
  keyId: string | null;
  /** The console session it was opened with (its cookie's token), if any. */
  session: string | null;
}

export type Socket = ServerWebSocket<SocketData>;

/**
 * Bun's WebSocket handler for every svc socket (main.ts passes it to Bun.serve). Bun takes one per
 * server, so the payload cap is the largest a route allows; each route checks its own per message.
 */
export const socketHandler: WebSocketHandler<SocketData> = {
  maxPayloadLength: 1024 * 1024 + 1024,
  idleTimeout: 120,
  sendPings: true,
  open: (ws) => ws.data.events.open?.(ws),
  message: (ws, message) => ws.data.events.message?.(ws, message),
  close: (ws, code, reason) => ws.data.events.close?.(ws, code, reason),
};

/**
 * The handler of a `GET path` route that upgrades to a WebSocket whose handlers `bind` makes; the
 * guards have already checked Host and Origin. Without an upgrade it answers 426.
 */
export function upgradeWebSocket(
  path: string,
  bind: (requestId: string, principal: Principal) => SocketEvents,
): Handler<AppEnv> {
  return (c) => {
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
      throw new AppError("upgrade_required", `GET ${path} is a WebSocket: connect with ws://…${path}.`, {
        headers: { Upgrade: "websocket" },
      });
    }
    const info = requestInfoOf(c);
    const server = info?.server;
    if (!info || !server) {
      throw new AppError("websocket_unavailable", "WebSockets need the Bun server (svc serve).");
    }
    const data: SocketData = {
      requestId: info.requestId,
      events: bind(info.requestId, info.principal),
      keyId: info.principal.key?.id ?? null,
      session: info.principal.session ?? null,
    };
    if (!server.upgrade(c.req.raw, { data })) {
      throw new AppError("upgrade_failed", "The WebSocket handshake was invalid.");
    }
    // Bun has taken over the socket; this response is never sent.
    return new Response(null);
  };
}

/** The app's open sockets, each with how it ends when svc shuts down. */
export interface OpenSockets {
  add(ws: Socket, goingAway: () => void): void;
  delete(ws: Socket): void;
  /** Ends every socket (its work dropped, then closed 1001 "going away"). */
  closeAll(): void;
  /**
   * Ends now the sockets whose credential has ended (a revoked key, a logged-out session): closed
   * 1008 with the reason. It also runs every second while a socket opened with a key is open, so
   * `svc keys revoke` run beside the server ends that key's sockets too.
   */
  closeEnded(): void;
  /** Ends the sockets opened without a key (keys were off): keys are now on (1008 "keys required"). */
  closeKeyless(): void;
}

/** Why a socket's key or session no longer holds ("key revoked", "logged out"), or null. */
export type CredentialEnded = (keyId: string, session: string | null) => string | null;

export function createOpenSockets(ended: CredentialEnded = () => null, everyMs = 1000): OpenSockets {
  const open = new Map<Socket, () => void>();
  let sweeping: ReturnType<typeof setInterval> | null = null;
  function closeEnded(): void {
    let keyedLeft = 0;
    for (const ws of [...open.keys()]) {
      const { keyId, session } = ws.data;
      if (keyId === null) continue;
      const why = ended(keyId, session);
      if (why === null) {
        keyedLeft += 1;
        continue;
      }
      open.delete(ws);
      ws.close(1008, why);
    }
    // No socket opened with a key is left: nothing to check until one opens.
    if (sweeping && keyedLeft === 0) {
      clearInterval(sweeping);
      sweeping = null;
    }
  }
  return {
    add(ws, goingAway) {
      open.set(ws, goingAway);
      // Only sockets opened with a key are checked: with keys off nothing runs.
      if (ws.data.keyId !== null && !sweeping) {
        sweeping = setInterval(closeEnded, everyMs);
        sweeping.unref?.();
      }
    },
    delete: (ws) => open.delete(ws),
    closeAll() {
      for (const goingAway of [...open.values()]) goingAway();
      open.clear();
      if (sweeping) clearInterval(sweeping);
      sweeping = null;
    },
    closeEnded,
    closeKeyless() {
      for (const ws of [...open.keys()]) {
        if (ws.data.keyId !== null) continue;
        open.delete(ws);
        ws.close(1008, "keys required");
      }
    },
  };
}

/**
 * Refuses a live dictation's message over SVC_DICTATE_MAX_FRAME_SIZE (413 payload_too_large, which
 * the socket closes 1009): /api/dictate's and the desktop app's /stream alike.
 */
export function assertFrameFits(message: string | Buffer, maxFrameBytes: number): void {
  const size = typeof message === "string" ? Buffer.byteLength(message) : message.byteLength;
  if (size > maxFrameBytes) {
    throw new AppError(
      "payload_too_large",
      `A message of ${size} bytes is over SVC_DICTATE_MAX_FRAME_SIZE (${maxFrameBytes}); send smaller frames.`,
    );
  }
}
