import { keyNameOf, type Principal } from "../access/principal.ts";
import type { LiveConnection, LiveDriver } from "../dictation/live/driver.ts";
import { AppError, isAppError } from "../errors.ts";
import { parseAppContext } from "../formats/app-context.ts";
import { assertFrameFits, type OpenSockets, type Socket, type SocketEvents } from "../http/sockets.ts";
import type { Logger } from "../logger.ts";
import type { SettingsService } from "../settings/service.ts";
import { cleanedOf } from "./answers.ts";
import { createCatchUp } from "./catch-up.ts";
import { readStreamMessage, type StreamServerMessage } from "./stream-protocol.ts";

// The Freestyle desktop app's `/stream` socket, translated into svc's one live driver
// (dictation/live/driver.ts): each recording (start … commit or cancel) is one live dictation of
// its own connection, so the socket outlives them, as the app expects, without the start and
// idle deadlines of one dictation between recordings.

export interface StreamSocketDeps {
  /** The driver behind the desktop door (`liveDoors.desktop`): its limits, and history's `desktop`. */
  live: LiveDriver;
  /** The largest message a client may send (SVC_DICTATE_MAX_FRAME_SIZE), read per message. */
  maxFrameBytes(): number;
  /** `dictate_max_speed` and `dictate_max_session_seconds`, which the catch-up keeps to. */
  settings: Pick<SettingsService, "get">;
  /** The model the app is told it dictates with (`config`, `session.ready`). */
  model(): Promise<string>;
  logger: Pick<Logger, "warn">;
  sockets: OpenSockets;
  /** A socket that sends nothing this long between recordings is closed (the app reconnects); default 10 min. */
  idleMs?: number;
}

/** The audio the app streams: 80 ms frames of 16 kHz mono PCM16. */
const pcm16 = { encoding: "s16le", sampleRate: 16_000, channels: 1 } as const;
const bytesPerSecond = 32_000;

interface Recording {
  conn: LiveConnection;
  catchUp: ReturnType<typeof createCatchUp>;
  /** The driver ended it (a limit, the engine): reported once, by whichever path gets there first. */
  failure: { error: unknown } | null;
  /** Commit came: its audio is complete and its final is on the way. */
  committed: boolean;
}

/** The handlers of one `/stream` socket: recordings one after another, each a live dictation. */
export function streamSocket(
  deps: StreamSocketDeps,
): (requestId: string, principal?: Principal) => SocketEvents {
  const idleMs = deps.idleMs ?? 10 * 60_000;
  return (requestId, principal) => {
    let ws: Socket | undefined;
    let model = "";
    /** The app context the app told last (`context`, `start` or `commit`), as it sent it. */
    let context: unknown = null;
    /** The recording receiving audio; committed ones wait for their final in `answers`. */
    let current: Recording | null = null;
    /** Committed recordings whose final is still to come. */
    const answering = new Set<Recording>();
    /** Finals leave in the order their commits came. */
    let answers: Promise<void> = Promise.resolve();
    let idle: ReturnType<typeof setTimeout> | undefined;
    const keyName = principal ? keyNameOf(principal) : null;

    const send = (message: StreamServerMessage) => {
      if (ws?.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
    };

    function report(error: unknown): void {
      const known = isAppError(error) ? error : null;
      if (!known) deps.logger.warn("desktop dictation failed", { requestId, error });
      const appError = known ?? new AppError("internal", `svc failed; request id ${requestId}.`);
      send({ type: "error", code: appError.code, message: appError.message });
    }

    /** Ends the recording receiving audio (cancel, an error): nothing is recorded. */
    function drop(reason?: unknown): void {
      const recording = current;
      if (!recording) return;
      current = null;
      recording.catchUp.clear();
      recording.conn.cancel(reason);
      recording.conn.close();
    }

    function armIdle(): void {
      clearTimeout(idle);
      idle = setTimeout(() => {
        // A recording running or being answered has the driver's deadlines.
        if (current || answering.size > 0) armIdle();
        else ws?.close(1000, "idle");
      }, idleMs);
    }

    /** The app context to use, from what the app sent (a string of JSON, an object, or null). */
    const appContextOf = (raw: unknown) => parseAppContext(raw);

    function start(raw: unknown): void {
      // A start without commit or cancel before it: the app gave that recording up.
      drop();
      const appContext = appContextOf(raw);
      let recording: Recording | null = null;
      const conn = deps.live.connect({
        fail(error) {
          if (!recording || recording.failure) return;
          recording.failure = { error };
          // A committed recording's final reports it; one still receiving audio ends here.
          if (recording.committed) return;
          if (current === recording) current = null;
          recording.catchUp.clear();
          conn.close();
          report(error);
        },
      });
      try {
        conn.start({
          audio: pcm16,
          request: { appContext, keyName },
          onPartial: (text) => send({ type: "partial", text }),
        });
      } catch (error) {
        conn.close();
        throw error;
      }
      recording = {
        conn,
        failure: null,
        committed: false,
        catchUp: createCatchUp({
          feed: (bytes) => conn.audio(bytes),
          maxSpeed: () => deps.settings.get("dictate_max_speed"),
          maxSeconds: () => deps.settings.get("dictate_max_session_seconds"),
          bytesPerSecond,
          fail: (error) => fail(recording, error),
        }),
      };
      current = recording;
      send({ type: "session.ready", model });
    }

    /** A recording receiving audio failed in the adapter (its catch-up, a frame): reported, dropped. */
    function fail(recording: Recording | null, error: unknown): void {
      if (!recording || recording !== current) return;
      drop(error);
      report(error);
    }

    function commit(): void {
      const recording = current;
      if (!recording) {
        throw new AppError(
          "invalid_request",
          'No recording is running: send {"type":"start"} before commit.',
        );
      }
      current = null;
      recording.committed = true;
      recording.conn.setAppContext(appContextOf(context));
      answering.add(recording);
      const final = (async () => {
        await recording.catchUp.drained();
        if (recording.failure) throw recording.failure.error;
        return recording.conn.stop();
      })();
      final.catch(() => {});
      answers = answers
        .then(() => final)
        .then(
          (result) => send({ type: "final", text: cleanedOf(result) }),
          (error) => report(recording.failure?.error ?? error),
        )
        .finally(() => {
          recording.conn.close();
          answering.delete(recording);
        });
    }

    function receive(message: string | Buffer): void {
      assertFrameFits(message, deps.maxFrameBytes());
      if (typeof message !== "string") {
        // Frames after a cancel, a commit or an error are the tail of that recording: dropped.
        current?.catchUp.push(message);
        return;
      }
      const read = readStreamMessage(message);
      if (read.type === "cancel") {
        drop();
        return;
      }
      if (read.type === "start") {
        if (read.context !== undefined) context = read.context;
        start(context);
        return;
      }
      if (read.context !== undefined) {
        context = read.context;
        // Told while recording (the app learns the frontmost app as it starts): the rest of it uses it.
        current?.conn.setAppContext(appContextOf(context));
      }
      if (read.type === "commit") commit();
    }

    return {
      open(socket) {
        ws = socket;
        deps.sockets.add(socket, () => {
          drop();
          socket.close(1001, "server shutting down");
        });
        armIdle();
        deps.model().then((name) => {
          model = name;
          send({ type: "config", model, streaming: true, sessionTransport: true, providerCategory: "local" });
        });
      },
      message(_socket, message) {
        armIdle();
        // The recording's idle deadline starts again with whatever the app sends.
        current?.conn.touch();
        try {
          receive(message);
        } catch (error) {
          drop(error);
          report(error);
        }
      },
      close(socket) {
        clearTimeout(idle);
        // A client that leaves takes its recordings' queued pieces out of the scheduler: after a
        // reconnect the app sends again what it still wants (or uploads it).
        drop();
        for (const recording of answering) recording.conn.close();
        deps.sockets.delete(socket);
      },
    };
  };
}
