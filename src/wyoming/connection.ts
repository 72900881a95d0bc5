import type { EngineId } from "../dictation/engines/types.ts";
import type { LiveDriver } from "../dictation/live/driver.ts";
import { AppError, isAppError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { errorEvent, type OutgoingEvent, pongEvent } from "./events.ts";
import { createEventReader, encodeEvent, type WyomingEvent } from "./framing.ts";
import type { WyomingLimits } from "./limits.ts";
import { createControlBudget, createEventRate } from "./pacing.ts";
import { createTranscription } from "./transcription.ts";

export interface ConnectionDeps {
  /** Each audio stream is a live dictation through it (its length, pace and idle deadline too). */
  live: LiveDriver;
  limits(): WyomingLimits;
  /** The `info` event's data, built when a client asks. */
  info(): Record<string, unknown>;
  /**
   * The model for a `transcribe` naming `name` or asking for `language`, when it is not the active
   * one; undefined leaves `stt_model` in charge.
   */
  model(
    name: string | undefined,
    language: string | undefined,
  ): { engine: EngineId; model: string } | undefined;
  logger: Pick<Logger, "info" | "warn" | "debug">;
  /** How long the event byte rate is measured over; default 5000 (tests shorten it). */
  rateWindowMs?: number;
}

/**
 * Failures of the client's own conduct (too fast, too slow, too big, out of order): the connection
 * ends at once. Anything else failed the dictation, and is answered in the protocol's terms.
 */
const clientFaults = new Set<string>([
  "audio_too_long",
  "too_fast",
  "request_timeout",
  "payload_too_large",
  "invalid_request",
  "bad_request",
  "busy",
]);
const inBand = (error: unknown) => !(isAppError(error) && clientFaults.has(error.code));

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

/**
 * One client: its events in order, one at a time (a `transcribe` waits for the transcript before
 * it, as in the Python servers), each audio stream a live dictation through the driver.
 */
export function createConnection(id: string, wire: Wire, deps: ConnectionDeps) {
  const reader = createEventReader(deps.limits);
  const waiting: WyomingEvent[] = [];
  /** An audio-stop is being answered: later events wait for its transcript. */
  let answering = false;
  let inputEnded = false;
  let closed = false;
  /** The failure last told to the client (one is not told twice). */
  let reported: unknown;
  /** Ends a failed dictation's wait for its audio-stop. */
  let grace: ReturnType<typeof setTimeout> | undefined;
  /** When the connection last finished work (or opened): the longest idle gives way first. */
  let idleSince = performance.now();
  const live = deps.live.connect({ fail });
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
  const speech = createTranscription({ live, model: deps.model, send });

  /** Stops every timer and the dictation, and lets go of what was read and not handled. */
  function release(): void {
    closed = true;
    clearTimeout(grace);
    rate.stop();
    live.close();
    speech.release();
    // A flood leaves events read ahead (60 KB pings) and a part-read one: a closing socket lingers.
    waiting.length = 0;
    reader.clear();
  }

  function close(): void {
    if (closed) return;
    release();
    wire.close();
  }

  /** Says in svc's log why, and tells the client (an `error` event). */
  function report(error: unknown, closing: boolean): void {
    // A piece that fails while audio-stop is answered reaches here twice: from the driver, and
    // as the stop's own failure.
    if (error === reported) return;
    reported = error;
    const known = isAppError(error) ? error : null;
    if (known)
      deps.logger.warn(closing ? "wyoming connection closed" : "wyoming transcription failed", {
        connection: id,
        code: known.code,
        reason: known.message,
      });
    else deps.logger.warn("wyoming transcription failed", { connection: id, error });
    const appError = known ?? new AppError("internal", `svc failed; connection ${id}.`);
    send(errorEvent(appError.code, appError.message));
  }

  /**
   * A failure: the client is told why and the connection ends. When the dictation itself failed
   * (a language no model speaks, an engine that cannot run) while the client still sends its audio,
   * the connection stays until audio-stop and answers it with an empty transcript: Home Assistant's
   * stt.py reads only a transcript, so a close mid-audio fails its next write and shows "speech-to-text
   * failed", while an empty transcript ends the turn as "No text recognized", the way its
   * satellites and dialogs expect. The reason is the error event before it, and svc's log line.
   */
  function fail(error: unknown): void {
    if (closed) return;
    const answered = inBand(error) && speech.open;
    report(error, !answered);
    if (answered && speech.fail()) {
      // The driver's deadlines ended with the dictation: the rest of its audio is read for at most
      // as long as a command may last. Home Assistant's own detector ends one well within it.
      grace = setTimeout(close, deps.limits().failedAudioGraceMs);
      return;
    }
    close();
  }

  /** audio-stop: later events wait for its transcript, and the socket is not read meanwhile. */
  function stop(): void {
    const answer = speech.audioStop();
    if (!answer) {
      // A failed dictation's audio-stop was answered with its empty transcript: the driver's
      // connection is over, so this one ends after it.
      if (live.over) close();
      return;
    }
    answering = true;
    wire.pause();
    answer.then(
      () => {
        if (closed) return;
        answering = false;
        idleSince = performance.now();
        wire.resume();
        drainWaiting();
      },
      (error: unknown) => {
        if (closed) return;
        report(error, !inBand(error));
        if (inBand(error)) speech.answerEmpty();
        close();
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
        speech.transcribe(event);
        return;
      case "audio-start":
        speech.audioStart(event);
        return;
      case "audio-chunk":
        speech.audioChunk(event);
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
    /**
     * How long it has had no audio open and no transcript being made, in ms; undefined while it
     * has. An idle connection gives its place to a new client when all are taken.
     */
    idleFor(): number | undefined {
      return speech.open || answering ? undefined : performance.now() - idleSince;
    },
    /** Bytes from the client. */
    receive(chunk: Uint8Array): void {
      if (closed) return;
      live.touch();
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
