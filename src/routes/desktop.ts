import * as v from "valibot";
import { streamPath } from "../desktop/stream-access.ts";
import { streamClientMessageSchema, streamServerMessageSchema } from "../desktop/stream-protocol.ts";
import { streamSocket } from "../desktop/stream-socket.ts";
import type { Dictation } from "../dictation/dictation.ts";
import { createLiveDriver } from "../dictation/live/driver.ts";
import { defaultOperatorLimits, liveDoors, type OperatorLimits } from "../dictation/live/limits.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { type DocumentedRoutes, documentedRoutes, type RouteSpec } from "../http/documented-routes.ts";
import { type OpenSockets, upgradeWebSocket } from "../http/sockets.ts";
import type { Logger } from "../logger.ts";
import type { SettingsService } from "../settings/service.ts";

// The Freestyle desktop app's own routes (SVC_FREESTYLE_DESKTOP=1; docs/freestyle.md): its
// live-dictation socket, the output step it asks the server about, and the beacons it sends, which
// svc answers and forgets.

const tag = "Freestyle desktop";

const streamDoc: RouteSpec = {
  summary: "The Freestyle desktop app's live dictation (WebSocket)",
  access: "dictate",
  errors: [
    "untrusted_origin",
    "cross_origin_request",
    "upgrade_required",
    "upgrade_failed",
    "websocket_unavailable",
  ],
  description: [
    'Only with SVC_FREESTYLE_DESKTOP=1. The socket stays open across recordings; svc speaks first with {"type":"config","model","streaming":true,"sessionTransport":true,"providerCategory":"local"}. Client: {"type":"context","context"} at any time (the app context, a JSON string {"app","windowTitle","url"} or null; the last one told applies, also to a recording under way), {"type":"start","context"?}, then binary frames of 16 kHz mono PCM16, then {"type":"commit","audioDurationMs"?,"context"?} or {"type":"cancel"}. Server: {"type":"session.ready","model"} after start, {"type":"partial","text"} now and then, {"type":"final","text"} after commit (the finished text; "" when a plugin consumed or suppressed it), {"type":"error","code","message"} when a recording fails (it is dropped; the socket stays open).',
    "Each recording is one live dictation through the same driver as GET /api/dictate, with its limits (dictate_max_session_seconds, dictate_idle_timeout_seconds while recording, SVC_DICTATE_MAX_SESSIONS recordings at once over this socket's door) and history source desktop. Audio sent faster than dictate_max_speed × real time (the app sends a whole recording again after a reconnect) is held and fed at that pace rather than refused. A socket that sends nothing for 10 minutes between recordings is closed; the app reconnects.",
    "Keys: the app sends its key as ?token=<key> on this path (taken only here; svc logs paths without their query), or a Bearer header. A wrong key is refused 401 before the upgrade.",
  ].join("\n\n"),
  responses: { 101: { description: "Switching to the WebSocket protocol" } },
  messages: { name: "DesktopStream", client: streamClientMessageSchema, server: streamServerMessageSchema },
};

const deliverBodySchema = v.object({
  text: v.string("text must be a string"),
  mode: v.optional(v.picklist(["paste", "clipboard"]), "paste"),
  appContext: v.optional(v.unknown()),
});

const deliverResultSchema = v.object({
  output: v.object({ text: v.string(), mode: v.picklist(["paste", "clipboard"]) }),
  disposition: v.literal("deliver"),
});

const beaconDoc = (summary: string): RouteSpec => ({
  summary,
  access: "dictate",
  description:
    "Only with SVC_FREESTYLE_DESKTOP=1. The desktop app sends it fire-and-forget; svc answers 204 and keeps nothing, sends nothing anywhere (svc has no telemetry).",
  responses: { 204: { description: "Received and dropped" } },
});

export interface DesktopRoutesDeps {
  docs: ApiDocs;
  dictation: Pick<Dictation, "transcriber" | "vad">;
  settings: Pick<SettingsService, "get">;
  logger: Logger;
  sockets: OpenSockets;
  /** The operator's caps (SVC_DICTATE_MAX_*); default: their defaults. */
  operator?: OperatorLimits;
}

/** The desktop app's routes, each resource on its own prefix; app.ts mounts them with the switch on. */
export function createDesktopRoutes(deps: DesktopRoutesDeps): DocumentedRoutes[] {
  const operator = deps.operator ?? defaultOperatorLimits;
  const { transcriber } = deps.dictation;
  const socket = streamSocket({
    live: createLiveDriver({
      transcriber,
      vad: deps.dictation.vad,
      door: liveDoors.desktop,
      settings: deps.settings,
      operator,
    }),
    maxFrameBytes: () => operator.dictateMaxFrameBytes,
    settings: deps.settings,
    // Asking for the engine also loads it, ready for the first recording.
    model: () =>
      transcriber.activeEngine().then(
        (engine) => engine.model,
        () => deps.settings.get("stt_model"),
      ),
    logger: deps.logger,
    sockets: deps.sockets,
  });
  const stream = documentedRoutes(deps.docs, streamPath, tag).get(
    "/",
    streamDoc,
    upgradeWebSocket(streamPath, socket),
  );
  const output = documentedRoutes(deps.docs, "/api/output", tag)
    .get(
      "/hook",
      {
        summary: "Whether a plugin holds back the desktop app's output",
        access: "dictate",
        description:
          "Only with SVC_FREESTYLE_DESKTOP=1. Always false: svc's plugins run inside the text pipeline, before the text is answered.",
        responses: {
          200: { description: "No output hook", schema: v.object({ present: v.literal(false) }) },
        },
      },
      (c) => c.json({ present: false }),
    )
    .post(
      "/deliver",
      {
        summary: "The text the desktop app is to paste, and how",
        access: "dictate",
        description:
          "Only with SVC_FREESTYLE_DESKTOP=1. Answers the text and mode it was sent: svc's pipeline (formats, dictionary, plugins) has already finished the text it answered.",
        body: deliverBodySchema,
        responses: { 200: { description: "Deliver as sent", schema: deliverResultSchema } },
      },
      (c) => {
        const body = c.req.valid("json");
        return c.json({ output: { text: body.text, mode: body.mode }, disposition: "deliver" as const });
      },
    );
  const drop = () => new Response(null, { status: 204 });
  const telemetry = documentedRoutes(deps.docs, "/api/telemetry", tag)
    .post("/", beaconDoc("The desktop app's analytics beacon"), drop)
    .post("/person", beaconDoc("The desktop app's analytics identity beacon"), drop);
  const clientError = documentedRoutes(deps.docs, "/api/client-error", tag).post(
    "/",
    beaconDoc("The desktop app's error report"),
    drop,
  );
  // svc's GET /api/events is its event socket; the desktop app POSTs its pipeline events here.
  const events = documentedRoutes(deps.docs, "/api/events", tag).post(
    "/",
    beaconDoc("The desktop app's pipeline events"),
    drop,
  );
  return [stream, output, telemetry, clientError, events];
}
