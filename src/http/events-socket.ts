import type { EventBus } from "../events.ts";
import type { Logger } from "../logger.ts";
import type { OpenSockets, SocketEvents } from "./sockets.ts";

// A client that stops reading is cut off rather than buffered without bound.
const maxBufferedBytes = 4 * 1024 * 1024;

export interface EventsSocketDeps {
  bus: EventBus;
  hello(): Record<string, unknown>;
  logger: Pick<Logger, "debug">;
  sockets: OpenSockets;
}

/** `GET /api/events`' handlers for one socket: hello on connect, then every published event. */
export function eventsSocket(deps: EventsSocketDeps): (requestId: string) => SocketEvents {
  return (requestId) => {
    let unsubscribe = () => {};
    return {
      open(ws) {
        ws.send(JSON.stringify({ ...deps.hello(), type: "hello", time: new Date().toISOString() }));
        unsubscribe = deps.bus.subscribe((event) => {
          if (ws.getBufferedAmount() > maxBufferedBytes) {
            ws.close(1013, "client too slow");
            return;
          }
          ws.send(JSON.stringify(event));
        });
        deps.sockets.add(ws, () => {
          unsubscribe();
          ws.close(1001, "server shutting down");
        });
        deps.logger.debug("events client connected", { requestId });
      },
      // The stream is server-to-client; messages from clients are ignored.
      close(ws) {
        unsubscribe();
        deps.sockets.delete(ws);
      },
    };
  };
}
