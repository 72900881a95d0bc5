import { AppError } from "../errors.ts";
import { eventTypes } from "../events.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { documentedRoutes, type RouteSpec } from "../http/documented-routes.ts";
import type { EventsSocketData } from "../http/events-socket.ts";
import { requestInfoOf } from "../http/request-info.ts";

const eventsDoc: RouteSpec = {
  summary: "Event stream (WebSocket)",
  errors: ["untrusted_origin", "upgrade_required", "upgrade_failed", "websocket_unavailable"],
  description: `Upgrade to a WebSocket. The server sends {"type":"hello",...} and then one JSON message per change, e.g. {"type":"settings.changed","key":"language","isDefault":false,"time":"..."}, {"type":"history.created","id":1,...}. Event types: ${eventTypes.join(", ")}. Events carry ids, keys, names and figures, never content (no transcript text, setting values, messages or plugin data): a page on another port of this machine may open the socket, so clients fetch content over HTTP, where the same-origin rule protects it. Without an upgrade the route answers 426.`,
  responses: { 101: { description: "Switching to the WebSocket protocol" } },
};

/** `GET /api/events` upgrades to a WebSocket; the guards have already checked Host and Origin. */
export function createEventsRoutes(deps: { docs: ApiDocs }) {
  return documentedRoutes(deps.docs, "/api/events", "Server").get("/", eventsDoc, (c) => {
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
      throw new AppError(
        "upgrade_required",
        "GET /api/events is a WebSocket: connect with ws://…/api/events.",
        {
          headers: { Upgrade: "websocket" },
        },
      );
    }
    const info = requestInfoOf(c);
    const server = info?.server;
    if (!info || !server) {
      throw new AppError("websocket_unavailable", "WebSockets need the Bun server (svc serve).");
    }
    const data: EventsSocketData = { kind: "events", requestId: info.requestId };
    if (!server.upgrade(c.req.raw, { data })) {
      throw new AppError("upgrade_failed", "The WebSocket handshake was invalid.");
    }
    // Bun has taken over the socket; this response is never sent.
    return new Response(null);
  });
}
