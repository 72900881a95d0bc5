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
  model(name: string | undefined, language: string | undefined): string | undefined;
  send(event: OutgoingEvent): void;
}

/** The audio stream being transcribed: what its transcript events need. */
interface Utterance {
  language: string | null;
  /** transcript-start has been sent; chunks follow it. */
  started: boolean;
  chunks: number;
}

export function createTranscription(deps: TranscriptionDeps) {
  const { live, send } = deps;
  let request: TranscribeRequest = {};
  let utterance: Utterance | null = null;

  function startTranscript(open: Utterance): void {
    if (open.started) return;
    open.started = true;
    send(transcriptStartEvent(open.language));
  }

  function begin(event: WyomingEvent): Utterance {
    const format = readAudioFormat(event.data);
    const language = request.language && request.language !== "auto" ? request.language : null;
    const open: Utterance = { language, started: false, chunks: 0 };
    utterance = open;
    live.start({
      audio: pcmLayoutOf(format),
      language: request.language,
      model: deps.model(request.name, request.language),
      appContext: wyomingAppContext,
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
      if (!open) {
        // Nothing was said: an empty transcript, as the Python servers answer.
        send(transcriptStartEvent(null));
        send(transcriptEvent("", null));
        send(transcriptStopEvent);
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
          throw error;
        },
      );
    },
    /** The connection ended: nothing more is sent for the audio that was open. */
    release(): void {
      utterance = null;
    },
  };
}
