import { type EventBus, eventTypes } from "../events.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { documentedRoutes, type RouteSpec } from "../http/documented-routes.ts";
import { eventsSocket } from "../http/events-socket.ts";
import { type OpenSockets, upgradeWebSocket } from "../http/sockets.ts";
import type { Logger } from "../logger.ts";

const eventsDoc: RouteSpec = {
  summary: "Event stream (WebSocket)",
  access: "dictate",
  errors: ["untrusted_origin", "upgrade_required", "upgrade_failed", "websocket_unavailable"],
  description: `Upgrade to a WebSocket. The server sends {"type":"hello",...} and then one JSON message per change, e.g. {"type":"settings.changed","key":"language","isDefault":false,"time":"..."}, {"type":"history.created","id":1,...}. Event types: ${eventTypes.join(", ")}. Events carry ids, keys, names and figures, never content (no transcript text, setting values, messages or plugin data): a page on another port of this machine may open the socket, so clients fetch content over HTTP, where the same-origin rule protects it. Without an upgrade the route answers 426.`,
  responses: { 101: { description: "Switching to the WebSocket protocol" } },
  // Events carry ids only: a page on another port of this machine may listen (docs/SPEC.md §5).
  crossPort: true,
};

/** `GET /api/events` upgrades to a WebSocket; the guards have already checked Host and Origin. */
export function createEventsRoutes(deps: {
  docs: ApiDocs;
  events: EventBus;
  version: string;
  logger: Logger;
  sockets: OpenSockets;
}) {
  const socket = eventsSocket({
    bus: deps.events,
    hello: () => ({ name: "svc", version: deps.version }),
    logger: deps.logger,
    sockets: deps.sockets,
  });
  return documentedRoutes(deps.docs, "/api/events", "Server").get(
    "/",
    eventsDoc,
    upgradeWebSocket("/api/events", socket),
  );
}
