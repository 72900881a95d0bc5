import { assertPace } from "../dictation/live/pace.ts";
import { createLiveSession, type LiveSession, type LiveSessionOptions } from "../dictation/live/session.ts";
import type { Vad } from "../dictation/vad/vad.ts";
import { AppError, isAppError } from "../errors.ts";
import type { AppContext } from "../formats/app-context.ts";
import type { Logger } from "../logger.ts";
import { type ChunkDecoder, createChunkDecoder } from "./audio.ts";
import {
  errorEvent,
  type OutgoingEvent,
  pongEvent,
  readAudioFormat,
  readTranscribe,
  type TranscribeRequest,
  transcriptChunkEvent,
  transcriptEvent,
  transcriptStartEvent,
  transcriptStopEvent,
} from "./events.ts";
import { createEventReader, encodeEvent, type WyomingEvent } from "./framing.ts";
import type { WyomingLimits } from "./limits.ts";
import { createControlBudget, createEventRate } from "./pacing.ts";

export interface ConnectionDeps {
  transcriber: LiveSessionOptions["transcriber"];
  vad: Pick<Vad, "stream">;
  limits(): WyomingLimits;
  /** The `info` event's data, built when a client asks. */
  info(): Record<string, unknown>;
  /**
   * The model for a `transcribe` naming `name` or asking for `language`, when it is not the active
   * one; undefined leaves `stt_model` in charge.
   */
  model(name: string | undefined, language: string | undefined): string | undefined;
  logger: Pick<Logger, "info" | "warn" | "debug">;
  /** How long the event byte rate is measured over; default 5000 (tests shorten it). */
  rateWindowMs?: number;
}

/** The socket as a connection uses it: bytes out, reading paused or resumed, an end. */
export interface Wire {
  write(bytes: Uint8Array): void;
  /** False while the client's unread answers are past the bound: handle nothing more until `writable()`. */
  writable(): boolean;
  pause(): void;
  resume(): void;
  /** Sends what is queued, then closes. */
  close(): void;
}

/** What history and the format matcher see: the built-in "Voice assistant" format matches it. */
export const wyomingAppContext: AppContext = { app: "Wyoming" };

interface Utterance {
  session: LiveSession;
  /** When its first audio event arrived (performance.now()), the clock its pace is measured on. */
  startedAt: number;
  decoder: ChunkDecoder;
  language: string | null;
  /** transcript-start has been sent; chunks follow it. */
  started: boolean;
  chunks: number;
}

/**
 * One client: its events in order, one at a time (a `transcribe` waits for the transcript before
 * it, as in the Python servers), each audio stream through a live dictation session.
 */
export function createConnection(id: string, wire: Wire, deps: ConnectionDeps) {
  const reader = createEventReader(deps.limits);
  const waiting: WyomingEvent[] = [];
  let request: TranscribeRequest = {};
  let utterance: Utterance | null = null;
  /** An audio-stop is being answered: later events wait for its transcript. */
  let answering = false;
  let inputEnded = false;
  let closed = false;
  let idle: ReturnType<typeof setTimeout> | undefined;
  /** When the connection last finished work (or opened): the longest idle gives way first. */
  let idleSince = performance.now();
  const control = createControlBudget(() => deps.limits().maxControlBytesPerSecond);
  const rate = createEventRate({
    minBytesPerSecond: () => deps.limits().minBytesPerSecond,
    windowMs: deps.rateWindowMs ?? 5000,
    paused: () => answering || !wire.writable(),
    onSlow: (minBytesPerSecond) =>
      fail(
        new AppError(
          "request_timeout",
          `An event's bytes arrived slower than ${minBytesPerSecond} bytes per second (wyoming_min_bytes_per_second); send each event whole.`,
        ),
      ),
  });

  const send = (event: OutgoingEvent) => {
    if (!closed) wire.write(encodeEvent(event.type, event.data));
  };

  /** Stops every timer and the dictation, and lets go of what was read and not handled. */
  function release(): void {
    closed = true;
    clearTimeout(idle);
    rate.stop();
    utterance?.session.cancel();
    utterance = null;
    // A flood leaves events read ahead (60 KB pings) and a part-read one: a closing socket lingers.
    waiting.length = 0;
    reader.clear();
  }

  function close(): void {
    if (closed) return;
    release();
    wire.close();
  }

  /** Tells the client why (an `error` event), logs it, and ends the connection. */
  function fail(error: unknown): void {
    if (closed) return;
    const known = isAppError(error) ? error : null;
    if (known)
      deps.logger.warn("wyoming connection closed", {
        connection: id,
        code: known.code,
        reason: known.message,
      });
    else deps.logger.warn("wyoming transcription failed", { connection: id, error });
    const appError = known ?? new AppError("internal", `svc failed; connection ${id}.`);
    send(errorEvent(appError.code, appError.message));
    close();
  }

  function armIdle(): void {
    clearTimeout(idle);
    if (closed || answering) return;
    const { idleTimeoutMs } = deps.limits();
    idle = setTimeout(() => {
      fail(
        new AppError(
          "request_timeout",
          `Nothing arrived for ${idleTimeoutMs / 1000} s (wyoming_idle_timeout_seconds); the connection was closed.`,
        ),
      );
    }, idleTimeoutMs);
  }

  function begin(format: ReturnType<typeof readAudioFormat>): Utterance {
    const language = request.language && request.language !== "auto" ? request.language : null;
    const open: Utterance = {
      startedAt: performance.now(),
      decoder: createChunkDecoder(format),
      language,
      started: false,
      chunks: 0,
      session: createLiveSession({
        transcriber: deps.transcriber,
        vad: deps.vad.stream(),
        language: request.language,
        model: deps.model(request.name, request.language),
        appContext: wyomingAppContext,
        source: "wyoming",
        onSegment: (segment) => {
          if (utterance !== open) return;
          startTranscript(open);
          // Chunks are appended as they come: each after the first carries its space.
          send(transcriptChunkEvent(open.chunks === 0 ? segment.text : ` ${segment.text}`));
          open.chunks++;
        },
        onError: fail,
      }),
    };
    return open;
  }

  function startTranscript(open: Utterance): void {
    if (open.started) return;
    open.started = true;
    send(transcriptStartEvent(open.language));
  }

  function audio(event: WyomingEvent): void {
    const format = readAudioFormat(event.data);
    utterance ??= begin(format);
    const open = utterance;
    // Checked before the audio is decoded or scored: what a flood sends past the bounds costs nothing.
    const incoming = (event.payload?.length ?? 0) / (format.rate * format.width * format.channels);
    const seconds = open.session.seconds + incoming;
    const { maxUtteranceSeconds, maxSpeed } = deps.limits();
    if (seconds > maxUtteranceSeconds) {
      throw new AppError(
        "audio_too_long",
        `The audio is longer than ${maxUtteranceSeconds} s (wyoming_max_utterance_seconds); send audio-stop sooner.`,
      );
    }
    // Eight clients sending noise as fast as they could held /api/health at 1.7 s.
    assertPace(seconds, open.startedAt, {
      maxSpeed,
      setting: "wyoming_max_speed",
      instead: "stream audio as it is captured",
    });
    if (!open.decoder.fits(format)) {
      // A client may change format mid-stream: the old resampler's tail goes first.
      open.session.push(open.decoder.flush());
      open.decoder = createChunkDecoder(format);
    }
    if (event.payload) open.session.push(open.decoder.decode(event.payload));
  }

  /** audio-stop: the transcript, framed by the streaming events, then the next event. */
  function stop(): void {
    const open = utterance;
    request = {};
    if (!open) {
      // Nothing was said: an empty transcript, as the Python servers answer.
      send(transcriptStartEvent(null));
      send(transcriptEvent("", null));
      send(transcriptStopEvent);
      return;
    }
    answering = true;
    clearTimeout(idle);
    wire.pause();
    open.session.push(open.decoder.flush());
    open.session.stop().then(
      (result) => {
        if (closed || utterance !== open) return;
        utterance = null;
        const language = result.language === "auto" ? open.language : result.language;
        startTranscript(open);
        send(transcriptEvent(result.text, language));
        send(transcriptStopEvent);
        answering = false;
        idleSince = performance.now();
        wire.resume();
        armIdle();
        drainWaiting();
      },
      (error) => {
        if (utterance === open) utterance = null;
        fail(error);
      },
    );
  }

  function handle(event: WyomingEvent): void {
    if (event.type !== "audio-chunk" && !control.take(event.size)) {
      const { maxControlBytesPerSecond } = deps.limits();
      throw new AppError(
        "too_fast",
        `Events other than audio arrived faster than ${maxControlBytesPerSecond} bytes per second (wyoming_max_control_bytes_per_second); send them as a command needs them.`,
      );
    }
    switch (event.type) {
      case "describe":
        send({ type: "info", data: deps.info() });
        return;
      case "ping":
        send(pongEvent(event.data));
        return;
      case "transcribe":
        request = readTranscribe(event.data);
        return;
      case "audio-start":
        if (utterance) {
          throw new AppError(
            "invalid_request",
            "audio-start came while audio was open: send audio-stop first.",
          );
        }
        utterance = begin(readAudioFormat(event.data));
        return;
      case "audio-chunk":
        audio(event);
        return;
      case "audio-stop":
        stop();
        return;
      default:
        // The protocol's rule: an event a program does not know is ignored.
        deps.logger.debug("wyoming event ignored", { connection: id, type: event.type });
    }
  }

  /** Handles the events that arrived, in order, until one must be answered before the rest. */
  function drainWaiting(): void {
    try {
      while (!closed && !answering && wire.writable() && waiting.length > 0) {
        const next = waiting.shift();
        if (next) handle(next);
      }
    } catch (error) {
      fail(error);
    }
    // A client that sent its last byte gets its answers, then the end (audio left open is dropped).
    if (!closed && !answering && inputEnded && waiting.length === 0) close();
  }

  return {
    /** The connection is open: nothing arriving for the idle timeout ends it. */
    start: armIdle,
    /**
     * How long it has had no audio open and no transcript being made, in ms; undefined while it
     * has. An idle connection gives its place to a new client when all are taken.
     */
    idleFor(): number | undefined {
      return utterance || answering ? undefined : performance.now() - idleSince;
    },
    /** Bytes from the client. */
    receive(chunk: Uint8Array): void {
      if (closed) return;
      armIdle();
      try {
        waiting.push(...reader.push(chunk));
      } catch (error) {
        fail(error);
        return;
      }
      rate.received(chunk.length, reader.midEvent);
      drainWaiting();
    },
    /** The client sent its last byte (a half-close): what it asked for is still answered. */
    end(): void {
      if (reader.midEvent) deps.logger.info("wyoming event cut short", { connection: id });
      inputEnded = true;
      drainWaiting();
    },
    /** The client read enough of its answers: the events that waited for that are handled. */
    writable: drainWaiting,
    /** The socket is gone: its work leaves the scheduler. */
    gone: release,
    close,
    /** Ends it with an error event saying why (the server shutting down, too many connections). */
    refuse(error: AppError): void {
      fail(error);
    },
  };
}

export type Connection = ReturnType<typeof createConnection>;
