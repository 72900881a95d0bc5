import type { ServerWebSocket, WebSocketHandler } from "bun";
import { assertPace } from "../dictation/live/pace.ts";
import { createLiveSession, type LiveSession, type LiveSessionOptions } from "../dictation/live/session.ts";
import type { Vad } from "../dictation/vad/vad.ts";
import { AppError, isAppError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { SettingsService } from "../settings/service.ts";
import {
  createFrameDecoder,
  type FrameDecoder,
  readClientMessage,
  type StartMessage,
} from "./dictate-protocol.ts";

/** What svc attaches to a live dictation's WebSocket when it upgrades one (routes/dictate.ts). */
export interface DictateSocketData {
  kind: "dictate";
  requestId: string;
}

export interface DictateLimits {
  maxSessionSeconds: number;
  /** Audio may arrive at most this many times faster than real time (see `tooFast`). */
  maxSpeed: number;
  maxSessions: number;
  /** A socket that has not sent `start` this long after opening is closed. */
  startTimeoutMs: number;
  idleTimeoutMs: number;
  maxFrameBytes: number;
}

export interface DictateSocketDeps {
  transcriber: LiveSessionOptions["transcriber"];
  vad: Pick<Vad, "stream">;
  /** Read when a session opens and on each message, so a settings change applies at once. */
  limits(): DictateLimits;
  logger: Pick<Logger, "warn" | "debug">;
}

export interface DictateSocket {
  handler: WebSocketHandler<DictateSocketData>;
  /** Live dictations now started (sockets that sent `start`). */
  readonly sessions: number;
  /** Cancels every session and closes it with 1001 "going away" (used at shutdown). */
  closeAll(): void;
}

type Socket = ServerWebSocket<DictateSocketData>;

interface Connection {
  session: LiveSession | null;
  decoder: FrameDecoder | null;
  /** Decoded frames reach the session in the order they came, one after the other. */
  feeding: Promise<void>;
  /** When `start` arrived (performance.now()), the clock audio is measured against. */
  startedAt: number;
  idle: ReturnType<typeof setTimeout> | undefined;
  /** Stop, cancel or an error arrived: nothing more is read. */
  ending: boolean;
}

/** The close code that tells a client why (RFC 6455 §7.4.1). */
function closeCodeOf(error: AppError): number {
  if (error.code === "busy") return 1013;
  if (error.code === "payload_too_large") return 1009;
  if (error.code === "unsupported_audio") return 1003;
  return error.status >= 500 ? 1011 : 1008;
}

/** Bun's WebSocket handler for `GET /api/dictate`: one live dictation per connection. */
export function createDictateSocket(deps: DictateSocketDeps): DictateSocket {
  const connections = new Map<Socket, Connection>();

  const send = (ws: Socket, message: Record<string, unknown>) => ws.send(JSON.stringify(message));

  function end(conn: Connection): void {
    conn.ending = true;
    clearTimeout(conn.idle);
  }

  /** Ends a connection's dictation: its queued pieces leave the scheduler, its codec is freed. */
  function abandon(conn: Connection, reason?: unknown): void {
    end(conn);
    conn.session?.cancel(reason);
    conn.session = null;
    conn.decoder?.close();
  }

  function fail(ws: Socket, error: unknown): void {
    // A client that left has nobody to tell (its leaving cancelled the session).
    if (ws.readyState !== WebSocket.OPEN) return;
    const conn = connections.get(ws);
    if (conn) {
      if (conn.ending && conn.session === null) return;
      abandon(conn, error);
    }
    const known = isAppError(error) ? error : null;
    if (!known) {
      deps.logger.warn("live dictation failed", { requestId: ws.data.requestId, error });
    }
    const appError = known ?? new AppError("internal", `svc failed; request id ${ws.data.requestId}.`);
    send(ws, { type: "error", code: appError.code, message: appError.message });
    ws.close(closeCodeOf(appError), appError.code);
  }

  /** Dictations that started: a socket counts against `maxSessions` from its `start` on. */
  const started = () => {
    let count = 0;
    for (const conn of connections.values()) if (conn.session) count++;
    return count;
  };

  /** Ends the dictation with request_timeout unless something renews the timer first. */
  function arm(ws: Socket, conn: Connection, ms: number, message: string): void {
    clearTimeout(conn.idle);
    conn.idle = setTimeout(() => fail(ws, new AppError("request_timeout", message)), ms);
  }

  function armIdle(ws: Socket, conn: Connection): void {
    const { idleTimeoutMs } = deps.limits();
    arm(
      ws,
      conn,
      idleTimeoutMs,
      `Nothing arrived for ${idleTimeoutMs / 1000} s (dictate_idle_timeout_seconds); the dictation was ended.`,
    );
  }

  /** Until `start`, a socket holds no session: it has a short while to send it, whatever else it sends. */
  function armAdmission(ws: Socket, conn: Connection): void {
    const { startTimeoutMs } = deps.limits();
    arm(
      ws,
      conn,
      startTimeoutMs,
      `No start arrived within ${startTimeoutMs / 1000} s of connecting (dictate_start_timeout_seconds); send {"type":"start",…} first.`,
    );
  }

  function start(ws: Socket, conn: Connection, message: StartMessage): void {
    if (conn.session)
      throw new AppError("invalid_request", "The dictation has already started: send audio, then stop.");
    const { maxSessions } = deps.limits();
    if (started() >= maxSessions) {
      throw new AppError(
        "busy",
        `${maxSessions} live dictations are running (dictate_max_sessions); retry shortly.`,
      );
    }
    conn.decoder = createFrameDecoder(message, deps.limits().maxSessionSeconds * 1000);
    conn.startedAt = performance.now();
    conn.session = createLiveSession({
      transcriber: deps.transcriber,
      vad: deps.vad.stream(),
      language: message.language,
      appContext: message.appContext,
      onSegment: (segment) =>
        send(ws, {
          type: "segment",
          text: segment.text,
          start: Math.round(segment.startMs),
          end: Math.round(segment.endMs),
        }),
      onPartial: (text) => send(ws, { type: "partial", text }),
      onError: (error) => fail(ws, error),
    });
    send(ws, { type: "ready" });
  }

  function stop(ws: Socket, conn: Connection): void {
    const { session, decoder } = conn;
    if (!session || !decoder) throw new AppError("invalid_request", 'Send {"type":"start",…} before stop.');
    end(conn);
    conn.feeding
      .then(() => decoder.flush())
      .then((rest) => {
        session.push(rest);
        return session.stop();
      })
      .then(
        (final) => {
          send(ws, { type: "final", ...final });
          ws.close(1000, "done");
        },
        (error) => fail(ws, error),
      );
  }

  function audio(ws: Socket, conn: Connection, bytes: Uint8Array): void {
    const { session, decoder } = conn;
    if (!session || !decoder) {
      throw new AppError("invalid_request", 'Send {"type":"start",…} before audio frames.');
    }
    const decoded = decoder.decode(bytes);
    conn.feeding = conn.feeding
      .then(() => decoded)
      .then((pcm) => {
        if (conn.session !== session) return;
        session.push(pcm);
        checkPace(session, conn.startedAt);
      })
      .catch((error) => fail(ws, error));
  }

  /** Past the longest dictation, or sent faster than `maxSpeed` × real time: the session ends. */
  function checkPace(session: LiveSession, startedAt: number): void {
    const { maxSessionSeconds, maxSpeed } = deps.limits();
    if (session.seconds > maxSessionSeconds) {
      throw new AppError(
        "audio_too_long",
        `The dictation is longer than ${maxSessionSeconds} s (dictate_max_session_seconds); stop sooner.`,
      );
    }
    assertPace(session.seconds, startedAt, {
      maxSpeed,
      setting: "dictate_max_speed",
      instead: "stream as it is spoken, or POST /api/transcribe a recording",
    });
  }

  function receive(ws: Socket, conn: Connection, message: string | Buffer): void {
    const size = typeof message === "string" ? Buffer.byteLength(message) : message.byteLength;
    const { maxFrameBytes } = deps.limits();
    if (size > maxFrameBytes) {
      throw new AppError(
        "payload_too_large",
        `A message of ${size} bytes is over dictate_max_frame_bytes (${maxFrameBytes}); send smaller frames.`,
      );
    }
    if (typeof message !== "string") {
      audio(ws, conn, message);
      return;
    }
    const parsed = readClientMessage(message);
    if (parsed.type === "start") {
      start(ws, conn, parsed);
      armIdle(ws, conn);
    } else if (parsed.type === "stop") stop(ws, conn);
    else cancel(ws, conn);
  }

  function cancel(ws: Socket, conn: Connection): void {
    abandon(conn);
    ws.close(1000, "cancelled");
  }

  const handler: WebSocketHandler<DictateSocketData> = {
    open(ws) {
      const conn: Connection = {
        session: null,
        decoder: null,
        feeding: Promise.resolve(),
        startedAt: 0,
        idle: undefined,
        ending: false,
      };
      connections.set(ws, conn);
      armAdmission(ws, conn);
    },
    message(ws, message) {
      const conn = connections.get(ws);
      if (!conn || conn.ending) return;
      // Before start, only the admission deadline runs: messages do not renew it.
      if (conn.session) armIdle(ws, conn);
      try {
        receive(ws, conn, message);
      } catch (error) {
        fail(ws, error);
      }
    },
    close(ws) {
      const conn = connections.get(ws);
      if (!conn) return;
      // A client that leaves takes its queued pieces out of the scheduler.
      abandon(conn);
      connections.delete(ws);
    },
  };

  return {
    handler,
    get sessions() {
      return started();
    },
    closeAll() {
      for (const [ws, conn] of connections) {
        abandon(conn);
        ws.close(1001, "server shutting down");
      }
      connections.clear();
    },
  };
}

/** The limits from their settings (dictate_*), read on each call. */
export function dictateLimits(settings: Pick<SettingsService, "get">): () => DictateLimits {
  return () => ({
    maxSessionSeconds: settings.get("dictate_max_session_seconds"),
    maxSpeed: settings.get("dictate_max_speed"),
    maxSessions: settings.get("dictate_max_sessions"),
    startTimeoutMs: settings.get("dictate_start_timeout_seconds") * 1000,
    idleTimeoutMs: settings.get("dictate_idle_timeout_seconds") * 1000,
    maxFrameBytes: settings.get("dictate_max_frame_bytes"),
  });
}
