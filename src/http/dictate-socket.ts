import { keyNameOf, type Principal } from "../access/principal.ts";
import type { LiveConnection, LiveDriver } from "../dictation/live/driver.ts";
import {
  closeCodeOf,
  errorMessage,
  readClientMessage,
  type ServerMessage,
  segmentMessage,
} from "../dictation/live/protocol.ts";
import { AppError, isAppError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { assertFrameFits, type OpenSockets, type Socket, type SocketEvents } from "./sockets.ts";

// GET /api/dictate's WebSocket: its messages (dictation/live/protocol.ts) translated into one live
// dictation through the driver (dictation/live/driver.ts), which holds every rule of the session.

export interface DictateSocketDeps {
  live: LiveDriver;
  /** The largest message a client may send (SVC_DICTATE_MAX_FRAME_SIZE), read per message. */
  maxFrameBytes(): number;
  logger: Pick<Logger, "warn">;
  sockets: OpenSockets;
}

/** The handlers of one `/api/dictate` socket: one live dictation per connection. */
export function dictateSocket(
  deps: DictateSocketDeps,
): (requestId: string, principal?: Principal) => SocketEvents {
  return (requestId, principal) => {
    let ws: Socket | undefined;
    let conn: LiveConnection | undefined;
    /** Stop, cancel or an error came: nothing more is read. */
    let ending = false;
    let failed = false;
    const send = (message: ServerMessage) => ws?.send(JSON.stringify(message));

    function fail(error: unknown): void {
      // A client that left has nobody to tell (its leaving cancelled the dictation).
      if (failed || !ws || ws.readyState !== WebSocket.OPEN) return;
      failed = true;
      ending = true;
      conn?.cancel(error);
      conn?.close();
      const known = isAppError(error) ? error : null;
      if (!known) deps.logger.warn("live dictation failed", { requestId, error });
      const appError = known ?? new AppError("internal", `svc failed; request id ${requestId}.`);
      send(errorMessage(appError));
      ws.close(closeCodeOf(appError), appError.code);
    }

    function receive(live: LiveConnection, message: string | Buffer): void {
      assertFrameFits(message, deps.maxFrameBytes());
      if (typeof message !== "string") {
        if (!live.dictating)
          throw new AppError("invalid_request", 'Send {"type":"start",…} before audio frames.');
        live.audio(message);
        return;
      }
      const read = readClientMessage(message);
      if (read.type === "start") {
        if (live.dictating) {
          throw new AppError("invalid_request", "The dictation has already started: send audio, then stop.");
        }
        live.start({
          audio: read.start.audio,
          request: { ...read.start.request, keyName: principal ? keyNameOf(principal) : null },
          onSegment: (segment) => send(segmentMessage(segment)),
          onPartial: (text) => send({ type: "partial", text }),
        });
        send({ type: "ready" });
      } else if (read.type === "stop") {
        if (!live.dictating) throw new AppError("invalid_request", 'Send {"type":"start",…} before stop.');
        ending = true;
        live.stop().then((final) => {
          send({ type: "final", ...final });
          ws?.close(1000, "done");
        }, fail);
      } else {
        ending = true;
        live.cancel();
        ws?.close(1000, "cancelled");
      }
    }

    return {
      open(socket) {
        ws = socket;
        const live = deps.live.connect({ fail });
        conn = live;
        deps.sockets.add(socket, () => {
          ending = true;
          live.close();
          socket.close(1001, "server shutting down");
        });
      },
      message(_socket, message) {
        if (!conn || ending) return;
        conn.touch();
        try {
          receive(conn, message);
        } catch (error) {
          fail(error);
        }
      },
      close(socket) {
        // A client that leaves takes its queued pieces out of the scheduler.
        conn?.close();
        deps.sockets.delete(socket);
      },
    };
  };
}
