import { AppError } from "../../errors.ts";
import type { AppContext } from "../../formats/app-context.ts";
import type { SettingsService } from "../../settings/service.ts";
import { type AudioStream, openAudioStream, type StreamFormat, sameStreamFormat } from "../audio/index.ts";
import type { DictationRequest } from "../request.ts";
import type { Transcription } from "../result.ts";
import type { Vad } from "../vad/vad.ts";
import { type LiveDoor, type LiveLimits, liveLimits, type OperatorLimits } from "./limits.ts";
import { assertPace } from "./pace.ts";
import { createLiveSession, type LiveSegment, type LiveSession, type LiveTranscriber } from "./session.ts";

// The one live driver: a client's connection through any door (the /api/dictate WebSocket,
// Wyoming, `svc dictate`), its dictations started, fed, stopped and cancelled, under one family of
// limits (length, pace, start and idle deadlines, sessions at once). The doors only translate
// their protocol into these calls and the driver's answers back.

export interface LiveDriverDeps {
  transcriber: LiveTranscriber;
  vad: Pick<Vad, "stream">;
  /** The door: its history source and the settings its limits are read from at each check. */
  door: LiveDoor;
  settings: Pick<SettingsService, "get">;
  /** The operator's caps (environment variables); default: their defaults. */
  operator?: OperatorLimits;
}

/** How a connection hears that its dictation (or the wait for one) is over. */
export interface LiveListener {
  /** A limit, a deadline, audio that does not decode or the engine ended it: say why and close. Once. */
  fail(error: unknown): void;
}

export interface LiveStartOptions {
  audio: StreamFormat;
  /** Default: the settings' choices; its source is the door's. */
  request?: Omit<DictationRequest, "source">;
  /** Each committed piece, in order. */
  onSegment?(segment: LiveSegment): void;
  /** Guesses at the piece being spoken (see `LiveSessionOptions.onPartial`); none without it. */
  onPartial?(text: string): void;
}

export interface LiveConnection {
  /** Starts a dictation; throws `busy` past `maxSessions`. */
  start(options: LiveStartOptions): void;
  /**
   * The next bytes of audio, in the started format, or in `format`, which replaces it (a Wyoming
   * client may change format mid-stream: the old stream's tail goes first). Length and pace are
   * checked before decoding: what a flood sends past them costs nothing. Throws when they are past.
   */
  audio(bytes: Uint8Array, format?: StreamFormat): void;
  /** The audio is over: the last piece is recognised, the pipeline and history run once. */
  stop(): Promise<Transcription>;
  /** Drops the dictation: its queued pieces leave the scheduler, nothing is recorded. */
  cancel(reason?: unknown): void;
  /** The running dictation's app context, learnt after its start (see `LiveSession.setAppContext`). */
  setAppContext(appContext: AppContext | null): void;
  /** Something arrived from the client: the idle deadline starts again. */
  touch(): void;
  /** The client is gone: the dictation is cancelled and the deadlines stopped. */
  close(): void;
  /** A dictation is open: started, and neither answered nor cancelled. */
  readonly dictating: boolean;
  /** Its stop is being answered. */
  readonly answering: boolean;
  /** It failed or was closed: it starts no more dictations. */
  readonly over: boolean;
}

export interface LiveDriver {
  connect(listener: LiveListener): LiveConnection;
  /** Dictations through this driver now open. */
  readonly sessions: number;
}

interface LiveDictation {
  session: LiveSession;
  stream: AudioStream;
  format: StreamFormat;
  /** When it started (performance.now()), the clock its pace is measured on. */
  startedAt: number;
  /** Seconds of audio received, counted as it arrives (raw PCM) before it is decoded. */
  received: number;
  /** Decoded audio reaches the session in the order it came, one piece after the other. */
  feeding: Promise<void>;
}

export function createLiveDriver(deps: LiveDriverDeps): LiveDriver {
  const { door } = deps;
  const limits = liveLimits(deps.settings, door, deps.operator);
  const open = new Set<LiveDictation>();
  const setting = (limit: keyof LiveLimits) =>
    limit === "maxSessions" ? (door.maxSessions?.variable ?? limit) : (door.settings[limit] ?? limit);
  /** What a codec may expand the audio to (raw PCM is counted from its bytes). */
  const maxDurationMs = () => limits().maxSeconds * 1000 || Number.POSITIVE_INFINITY;

  /** Past the longest dictation, or sent faster than `maxSpeed` × real time: it ends. */
  function check(dictation: LiveDictation, seconds: number): void {
    const { maxSeconds, maxSpeed } = limits();
    if (maxSeconds > 0 && seconds > maxSeconds) {
      throw new AppError(
        "audio_too_long",
        `The dictation is longer than ${maxSeconds} s (${setting("maxSeconds")}); stop it sooner.`,
      );
    }
    if (maxSpeed > 0) {
      assertPace(seconds, dictation.startedAt, {
        maxSpeed,
        setting: setting("maxSpeed"),
        instead: door.tooFast,
      });
    }
  }

  function connect(listener: LiveListener): LiveConnection {
    let current: LiveDictation | null = null;
    let answering = false;
    let started = false;
    let over = false;
    let failure: { error: unknown } | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;

    function abandon(reason?: unknown): void {
      const dictation = current;
      if (!dictation) return;
      current = null;
      open.delete(dictation);
      dictation.session.cancel(reason);
      dictation.stream.close();
    }

    function fail(error: unknown): void {
      if (over) return;
      over = true;
      failure = { error };
      clearTimeout(timer);
      abandon(error);
      listener.fail(error);
    }

    /** Ends the connection with request_timeout unless something renews the deadline first. */
    function arm(seconds: number, message: string): void {
      clearTimeout(timer);
      timer = setTimeout(() => fail(new AppError("request_timeout", message)), seconds * 1000);
    }

    /** Before its first dictation a connection has the start deadline; after, the idle one. */
    function armDeadline(): void {
      clearTimeout(timer);
      if (over || answering) return;
      const { startTimeoutSeconds, idleTimeoutSeconds } = limits();
      if (!started && startTimeoutSeconds > 0) {
        arm(
          startTimeoutSeconds,
          `No dictation started within ${startTimeoutSeconds} s of connecting (${setting("startTimeoutSeconds")}); start one first.`,
        );
      } else if (idleTimeoutSeconds > 0) {
        arm(
          idleTimeoutSeconds,
          `Nothing arrived for ${idleTimeoutSeconds} s (${setting("idleTimeoutSeconds")}); the connection was closed.`,
        );
      }
    }

    /** Decoded audio into the session, in order; the length and pace checked again (a codec's). */
    function feed(dictation: LiveDictation, decoded: Promise<Float32Array>): void {
      // Handled here, and again in order below: a failure is reported once, by the chain.
      decoded.catch(() => {});
      dictation.feeding = dictation.feeding
        .then(() => decoded)
        .then((pcm) => {
          if (current !== dictation) return;
          dictation.session.push(pcm);
          check(dictation, dictation.session.seconds);
        })
        .catch(fail);
    }

    armDeadline();
    return {
      get dictating() {
        return current !== null;
      },
      get answering() {
        return answering;
      },
      get over() {
        return over;
      },
      start(options) {
        if (over) throw failure?.error ?? new AppError("invalid_request", "The connection has ended.");
        if (current)
          throw new AppError("invalid_request", "A dictation is running: send its audio, then stop.");
        const { maxSessions } = limits();
        if (maxSessions > 0 && open.size >= maxSessions) {
          throw new AppError(
            "busy",
            `${maxSessions} live dictations are running (${setting("maxSessions")}); retry shortly.`,
          );
        }
        const dictation: LiveDictation = {
          stream: openAudioStream(options.audio, maxDurationMs()),
          format: options.audio,
          startedAt: performance.now(),
          received: 0,
          feeding: Promise.resolve(),
          session: createLiveSession({
            transcriber: deps.transcriber,
            vad: deps.vad.stream(),
            request: { ...options.request, source: door.source },
            onSegment: options.onSegment,
            onPartial: options.onPartial,
            partialBudget: deps.settings.get("live_partial_budget"),
            onError: fail,
          }),
        };
        current = dictation;
        open.add(dictation);
        started = true;
        armDeadline();
      },
      audio(bytes, format) {
        const dictation = current;
        if (!dictation) throw new AppError("invalid_request", "Start a dictation before sending its audio.");
        if (format && !sameStreamFormat(dictation.format, format)) {
          feed(dictation, dictation.stream.end());
          dictation.stream = openAudioStream(format, maxDurationMs());
          dictation.format = format;
        }
        const seconds = dictation.received + dictation.stream.secondsIn(bytes.length);
        check(dictation, seconds);
        dictation.received = seconds;
        feed(dictation, dictation.stream.push(bytes));
      },
      async stop() {
        const dictation = current;
        if (!dictation) throw new AppError("invalid_request", "No dictation is running to stop.");
        answering = true;
        clearTimeout(timer);
        try {
          await dictation.feeding;
          if (failure) throw failure.error;
          dictation.session.push(await dictation.stream.end());
          return await dictation.session.stop();
        } finally {
          if (current === dictation) {
            current = null;
            open.delete(dictation);
          }
          answering = false;
          armDeadline();
        }
      },
      cancel(reason) {
        abandon(reason);
      },
      setAppContext(appContext) {
        current?.session.setAppContext(appContext);
      },
      touch() {
        // Until the first dictation starts, only the start deadline runs: nothing renews it.
        if (!started && limits().startTimeoutSeconds > 0) return;
        armDeadline();
      },
      close() {
        over = true;
        clearTimeout(timer);
        abandon();
      },
    };
  }

  return {
    connect,
    get sessions() {
      return open.size;
    },
  };
}
