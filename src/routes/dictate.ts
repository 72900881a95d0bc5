import type { Dictation } from "../dictation/dictation.ts";
import { createLiveDriver } from "../dictation/live/driver.ts";
import { defaultOperatorLimits, liveDoors, type OperatorLimits } from "../dictation/live/limits.ts";
import { clientMessageSchema, liveFormats, serverMessageSchema } from "../dictation/live/protocol.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { dictateSocket } from "../http/dictate-socket.ts";
import { documentedRoutes, type RouteSpec } from "../http/documented-routes.ts";
import { type OpenSockets, upgradeWebSocket } from "../http/sockets.ts";
import type { Logger } from "../logger.ts";
import type { SettingsService } from "../settings/service.ts";

const dictateDoc: RouteSpec = {
  summary: "Live dictation (WebSocket)",
  access: "dictate",
  errors: [
    "untrusted_origin",
    "cross_origin_request",
    "upgrade_required",
    "upgrade_failed",
    "websocket_unavailable",
  ],
  description: [
    "Upgrade to a WebSocket and dictate while speaking: each piece of speech closed by a pause is transcribed at once, so at stop only the tail is left. One dictation per connection.",
    `The messages, both directions, are the components DictateClientMessage and DictateServerMessage (x-websocket-messages). Client: {"type":"start","format":"${liveFormats.join('"|"')}","sampleRate":48000,"channels"?:1,"language"?:"en","appContext"?:{"app":"Slack"}}; then binary frames: for pcm16 and f32, interleaved little-endian samples (16-bit integers or 32-bit floats; sampleRate required, any rate from 4000 to 384000 Hz is resampled to 16 kHz, channels are averaged; a frame may end mid-sample, the rest comes with the next); for webm-opus and ogg-opus, a MediaRecorder stream in chunks cut anywhere (sampleRate and channels are read from the stream); then {"type":"stop"} or {"type":"cancel"}. Audio may arrive at most dictate_max_speed times faster than real time, after a one-second head start.`,
    'Server: {"type":"ready"} after start; {"type":"partial","text":"go for"} now and then, a revisable guess at the piece being spoken (at most once per 500 ms of new audio, only while the engine is otherwise idle); {"type":"segment","text":"go forward","start":120,"end":1480} per committed piece (start and end in ms from the first sample; the engine\'s text, before the text pipeline); {"type":"final",…} after stop, with the body of POST /api/transcribe (the pipeline runs once over the whole text, history is written once; durationMs is the wait from stop), then close 1000. cancel closes 1000 with nothing recorded; leaving drops the queued work.',
    'Errors: {"type":"error","code","message"} then close: busy (a start beyond SVC_DICTATE_MAX_SESSIONS started dictations; a socket counts only once it has started) 1013; unsupported_audio (a format not listed) 1003; payload_too_large (a message over SVC_DICTATE_MAX_FRAME_SIZE) 1009; invalid_json, invalid_request (unknown message, audio before start), invalid_audio (a stream that does not decode), invalid_app_context, audio_too_long (past dictate_max_session_seconds), too_fast (faster than dictate_max_speed × real time), request_timeout (no start within dictate_start_timeout_seconds of connecting, or nothing for dictate_idle_timeout_seconds) 1008; engine failures with their own codes, 1011 when the server failed.',
    "Origin: only svc's own pages, app:// and SVC_TRUSTED_ORIGINS entries may open it (a page on another port of this machine is refused 403 cross_origin_request: a WebSocket has no preflight, and a dictation uses the engine and writes history).",
    'Example: → start pcm16 16000 · ← ready · → 100 ms frames · ← segment "go forward ten meters" · → stop · ← final {text:"Go forward ten meters",…}. Without an upgrade the route answers 426.',
  ].join("\n\n"),
  responses: { 101: { description: "Switching to the WebSocket protocol" } },
  messages: { name: "Dictate", client: clientMessageSchema, server: serverMessageSchema },
};

/**
 * `GET /api/dictate` upgrades to a WebSocket whose handlers translate its messages into one live
 * dictation through the driver; the guards have already checked Host and Origin.
 */
export function createDictateRoutes(deps: {
  docs: ApiDocs;
  dictation: Pick<Dictation, "transcriber" | "vad">;
  settings: Pick<SettingsService, "get">;
  logger: Logger;
  sockets: OpenSockets;
  /** The operator's caps (SVC_DICTATE_MAX_*); default: their defaults. */
  operator?: OperatorLimits;
}) {
  const operator = deps.operator ?? defaultOperatorLimits;
  const live = createLiveDriver({
    transcriber: deps.dictation.transcriber,
    vad: deps.dictation.vad,
    door: liveDoors.dictate,
    settings: deps.settings,
    operator,
  });
  const socket = dictateSocket({
    live,
    maxFrameBytes: () => operator.dictateMaxFrameBytes,
    logger: deps.logger,
    sockets: deps.sockets,
  });
  return documentedRoutes(deps.docs, "/api/dictate", "Dictation").get(
    "/",
    dictateDoc,
    upgradeWebSocket("/api/dictate", socket),
  );
}
