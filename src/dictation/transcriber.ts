import type { DictationApi } from "../plugins/hook-api.ts";
import type { PipelineEvent } from "../plugins/pipeline-events.ts";
import { type Completion, type CompletionDeps, createCompletion } from "./complete.ts";
import {
  createRecognition,
  deadline,
  type Recognised,
  type Recogniser,
  type RecognitionDeps,
  type RecognitionLimits,
} from "./recognise.ts";
import type { DictationRequest } from "./request.ts";
import { noTimings, type Transcription } from "./result.ts";
import { finishedSegments } from "./timed-text.ts";

// The batch transcriber: a whole recording decoded, recognised (recognise.ts) and completed
// (complete.ts). It also hands out the two rooms' ports, which a live session uses piece by piece.

export interface DecodedClip {
  pcm: Float32Array;
  durationMs: number;
}

export interface TranscriberDeps extends RecognitionDeps, CompletionDeps {
  decode(bytes: Uint8Array, contentType: string | undefined, maxDurationMs: number): Promise<DecodedClip>;
  /** The dictionary alone, for the text of timed segments (the whole text takes the pipeline). */
  dictionary(text: string): string;
  limits(): RecognitionLimits & { maxAudioMs: number };
}

export interface TranscribeInput {
  audio: Uint8Array;
  contentType?: string;
  /** Default: an `api` dictation with the settings' choices. */
  request?: DictationRequest;
  /** Answer the engine's timed segments too (the OpenAI API's verbose_json, srt and vtt). */
  detail?: boolean;
  signal?: AbortSignal;
}

/** Whole recordings, and the ports a live session recognises and completes its pieces through. */
export interface Transcriber extends Recogniser, Completion {
  transcribe(input: TranscribeInput): Promise<Transcription>;
  /** A new dictation's hook `api` (a live session holds one for all its pieces). */
  newDictation(): DictationApi;
  /** Hands a pipeline event to the plugins' `event` hooks (a live session's recording events). */
  notify(event: PipelineEvent): void;
}

export function createTranscriber(deps: TranscriberDeps): Transcriber {
  const recognition = createRecognition(deps);
  const completion = createCompletion(deps);

  async function transcribe(input: TranscribeInput): Promise<Transcription> {
    const started = performance.now();
    const limits = deps.limits();
    const { signal, explain } = deadline(limits.timeoutMs, input.signal);
    const timings = noTimings();
    const clip = await deps.decode(input.audio, input.contentType, limits.maxAudioMs);
    timings.decode = performance.now() - started;
    const request = input.request ?? {};
    // One hook `api` for the whole dictation: what beforeTranscribe decides holds for the rest.
    const dictation = deps.newDictation();
    const hooks = { source: request.source ?? "api", appContext: request.appContext ?? null, dictation };
    let recognised: Recognised;
    try {
      recognised = await recognition.recognise({
        pcm: clip.pcm,
        durationMs: clip.durationMs,
        request,
        hooks,
        detectSpeech: true,
        signal,
        timings,
      });
    } catch (error) {
      throw explain(error);
    }
    const result = await completion.complete({
      raw: recognised.text,
      language: recognised.language,
      engine: recognised.engine,
      audioDurationMs: clip.durationMs,
      started,
      timings,
      request,
      dictation,
    });
    // A dictation a plugin consumed delivers nothing: no segments either.
    if (input.detail && result.disposition !== "deliver") result.segments = [];
    else if (input.detail) {
      // Timed parts read like the text where its words still line up with the engine's; else
      // (cleanup rephrased it) they keep the engine's text with the dictionary applied.
      const finished = request.skipPostProcess ? null : finishedSegments(recognised.segments, result.text);
      result.segments =
        finished ??
        recognised.segments.map((segment) =>
          request.skipPostProcess ? segment : { ...segment, text: deps.dictionary(segment.text) },
        );
    }
    return result;
  }

  return {
    transcribe,
    recognisePiece: recognition.recognisePiece,
    activeEngine: recognition.activeEngine,
    isIdle: recognition.isIdle,
    plainPieces: recognition.plainPieces,
    complete: completion.complete,
    newDictation: deps.newDictation,
    notify: (event) => deps.notify?.(event),
  };
}
