import type { ServerWebSocket, WebSocketHandler } from "bun";
import type { EventBus } from "../events.ts";
import type { Logger } from "../logger.ts";

/** What svc attaches to an events WebSocket when it upgrades one (routes/events.ts). */
export interface EventsSocketData {
  kind: "events";
  requestId: string;
}

// A client that stops reading is cut off rather than buffered without bound.
const maxBufferedBytes = 4 * 1024 * 1024;

export interface EventsSocket {
  handler: WebSocketHandler<EventsSocketData>;
  /** Closes every client with 1001 "going away" (used at shutdown). */
  closeAll(): void;
}

/** Bun's WebSocket handler for `/api/events`: hello on connect, then every published event. */
export function createEventsSocket(
  bus: EventBus,
  hello: () => Record<string, unknown>,
  logger: Logger,
): EventsSocket {
  const clients = new Map<ServerWebSocket<EventsSocketData>, () => void>();
  const handler: WebSocketHandler<EventsSocketData> = {
    maxPayloadLength: 64 * 1024,
    idleTimeout: 120,
    sendPings: true,
    open(ws) {
      ws.send(JSON.stringify({ ...hello(), type: "hello", time: new Date().toISOString() }));
      const unsubscribe = bus.subscribe((event) => {
        if (ws.getBufferedAmount() > maxBufferedBytes) {
          ws.close(1013, "client too slow");
          return;
        }
        ws.send(JSON.stringify(event));
      });
      clients.set(ws, unsubscribe);
      logger.debug("events client connected", { requestId: ws.data.requestId });
    },
    message() {
      // The stream is server-to-client; messages from clients are ignored.
    },
    close(ws) {
      clients.get(ws)?.();
      clients.delete(ws);
    },
  };
  return {
    handler,
    closeAll() {
      for (const [ws, unsubscribe] of clients) {
        unsubscribe();
        ws.close(1001, "server shutting down");
      }
      clients.clear();
    },
  };
}
