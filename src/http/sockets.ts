import type { ServerWebSocket, WebSocketHandler } from "bun";
import type { DictateSocketData } from "./dictate-socket.ts";
import type { EventsSocketData } from "./events-socket.ts";

/** What an upgraded socket carries: its kind says which handler serves it. */
export type SocketData = EventsSocketData | DictateSocketData;

// Bun takes one handler per server; the live dictation's own limit (a setting) is checked per
// message, so the server-wide cap is the highest that setting allows.
const maxPayloadLength = 1024 * 1024 + 1024;

/** One Bun WebSocket handler over the events stream and live dictation, chosen by `data.kind`. */
export function routeSockets(
  events: WebSocketHandler<EventsSocketData>,
  dictate: WebSocketHandler<DictateSocketData>,
): WebSocketHandler<SocketData> {
  const isDictate = (ws: ServerWebSocket<SocketData>): ws is ServerWebSocket<DictateSocketData> =>
    ws.data.kind === "dictate";
  const asEvents = (ws: ServerWebSocket<SocketData>) => ws as ServerWebSocket<EventsSocketData>;
  return {
    maxPayloadLength,
    idleTimeout: 120,
    sendPings: true,
    open(ws) {
      if (isDictate(ws)) dictate.open?.(ws);
      else events.open?.(asEvents(ws));
    },
    message(ws, message) {
      if (isDictate(ws)) return dictate.message?.(ws, message);
      return events.message?.(asEvents(ws), message);
    },
    close(ws, code, reason) {
      if (isDictate(ws)) dictate.close?.(ws, code, reason);
      else events.close?.(asEvents(ws), code, reason);
    },
  };
}
