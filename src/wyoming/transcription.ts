import type { EngineId } from "../dictation/engines/types.ts";
import type { LiveConnection } from "../dictation/live/driver.ts";
import { AppError } from "../errors.ts";
import type { AppContext } from "../formats/app-context.ts";
import {
  type OutgoingEvent,
  pcmLayoutOf,
  readAudioFormat,
  readTranscribe,
  type TranscribeRequest,
  transcriptChunkEvent,
  transcriptEvent,
  transcriptStartEvent,
  transcriptStopEvent,
} from "./events.ts";
import type { WyomingEvent } from "./framing.ts";

// Wyoming's speech-to-text events translated into live dictations: `transcribe` says what the next
// audio is for, each audio stream (audio-start or its first chunk, to audio-stop) is one dictation
// through the driver, and its pieces come back as transcript-chunk events while audio still arrives.

/** What history and the format matcher see: the built-in "Voice assistant" format matches it. */
export const wyomingAppContext: AppContext = { app: "Wyoming" };

export interface TranscriptionDeps {
  live: LiveConnection;
  /** The model for `transcribe {name, language}` when it is not the active one (see ConnectionDeps). */
  model(
    name: string | undefined,
    language: string | undefined,
  ): { engine: EngineId; model: string } | undefined;
  send(event: OutgoingEvent): void;
}

/** The audio stream being transcribed: what its transcript events need. */
interface Utterance {
  language: string | null;
  /** transcript-start has been sent; chunks follow it. */
  started: boolean;
  chunks: number;
  /** Its dictation failed (the error event is sent): the rest of its audio is read and dropped. */
  failed: boolean;
}

export function createTranscription(deps: TranscriptionDeps) {
  const { live, send } = deps;
  let request: TranscribeRequest = {};
  let utterance: Utterance | null = null;
  /** The utterance whose transcript failed at audio-stop: `answerEmpty` ends its frame. */
  let unanswered: Utterance | null = null;

  function startTranscript(open: Utterance): void {
    if (open.started) return;
    open.started = true;
    send(transcriptStartEvent(open.language));
  }

  /** An empty transcript in its streaming frame (transcript-start already sent when `started`). */
  function empty(language: string | null, started: boolean): void {
    if (!started) send(transcriptStartEvent(language));
    send(transcriptEvent("", language));
    send(transcriptStopEvent);
  }

  function begin(event: WyomingEvent): Utterance {
    const format = readAudioFormat(event.data);
    const language = request.language && request.language !== "auto" ? request.language : null;
    const open: Utterance = { language, started: false, chunks: 0, failed: false };
    utterance = open;
    const chosen = deps.model(request.name, request.language);
    live.start({
      audio: pcmLayoutOf(format),
      request: {
        language: request.language,
        engine: chosen?.engine,
        model: chosen?.model,
        appContext: wyomingAppContext,
      },
      onSegment: (segment) => {
        if (utterance !== open) return;
        startTranscript(open);
        // Chunks are appended as they come: each after the first carries its space.
        send(transcriptChunkEvent(open.chunks === 0 ? segment.text : ` ${segment.text}`));
        open.chunks++;
      },
    });
    return open;
  }

  return {
    /** Audio is open (a transcript may be coming). */
    get open(): boolean {
      return utterance !== null;
    },
    transcribe(event: WyomingEvent): void {
      request = readTranscribe(event.data);
    },
    audioStart(event: WyomingEvent): void {
      if (utterance) {
        throw new AppError(
          "invalid_request",
          "audio-start came while audio was open: send audio-stop first.",
        );
      }
      begin(event);
    },
    /** A chunk without audio-start starts from its own format, as the Python servers allow. */
    audioChunk(event: WyomingEvent): void {
      if (!utterance) begin(event);
      if (utterance?.failed) return;
      // A client may change format mid-stream: the driver finishes the old one's audio first.
      if (event.payload) live.audio(event.payload, pcmLayoutOf(readAudioFormat(event.data)));
    },
    /**
     * audio-stop: the transcript, framed by the streaming events. Resolves once it is sent (later
     * events wait for that); null when it was answered at once.
     */
    audioStop(): Promise<void> | null {
      const open = utterance;
      request = {};
      if (!open || open.failed) {
        // Nothing was said, or its dictation failed: an empty transcript, as the Python servers
        // answer silence (after the error event that said why).
        utterance = null;
        empty(open?.language ?? null, open?.started ?? false);
        return null;
      }
      return live.stop().then(
        (result) => {
          if (utterance !== open) return;
          utterance = null;
          const language = result.language === "auto" ? open.language : result.language;
          startTranscript(open);
          send(transcriptEvent(result.text, language));
          send(transcriptStopEvent);
        },
        (error) => {
          if (utterance === open) utterance = null;
          unanswered = open;
          throw error;
        },
      );
    },
    /**
     * The open audio's dictation failed and the client was told why: its remaining audio is dropped
     * and audio-stop answers an empty transcript. False when no audio is open.
     */
    fail(): boolean {
      if (!utterance) return false;
      utterance.failed = true;
      return true;
    },
    /** The answer to an audio-stop whose transcript failed: an empty one, after the error event. */
    answerEmpty(): void {
      empty(unanswered?.language ?? null, unanswered?.started ?? false);
      unanswered = null;
    },
    /** The connection ended: nothing more is sent for the audio that was open. */
    release(): void {
      utterance = null;
    },
  };
}
