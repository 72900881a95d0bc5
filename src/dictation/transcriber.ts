import type { AppContext } from "../formats/app-context.ts";
import type { HistorySource } from "../history/items.ts";
import type { DictationApi } from "../plugins/hook-api.ts";
import type { PipelineEvent } from "../plugins/pipeline-events.ts";
import { type Completion, type CompletionDeps, createCompletion } from "./complete.ts";
import type { EngineId } from "./engines/types.ts";
import {
  createRecognition,
  deadline,
  type Recognised,
  type Recogniser,
  type RecognitionDeps,
  type RecognitionLimits,
} from "./recognise.ts";
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
  appContext?: AppContext | null;
  language?: string;
  skipPostProcess?: boolean;
  /** Use this engine instead of the `stt_engine` setting (the CLI's --engine). */
  engine?: EngineId;
  /** false: do not store the result in history (the CLI's --no-history). */
  record?: boolean;
  signal?: AbortSignal;
  /** An installed model for this dictation instead of the `stt_model` setting. */
  model?: string;
  /** The caller's prompt, combined with the vocabulary within the engine's prompt budget. */
  prompt?: string;
  /** Terms to bias recognition towards, ahead of the vocabulary (/v1's `keywords`). */
  keywords?: readonly string[];
  /** To English, with a multilingual model (the translate task). */
  translate?: boolean;
  /** Time words too (`detail` segments carry them). */
  words?: boolean;
  temperature?: number;
  /** Answer the engine's timed segments too (the OpenAI API's verbose_json, srt and vtt). */
  detail?: boolean;
  /** Where the dictation came from (history, the plugin hooks' `source`); default `api`. */
  source?: HistorySource;
  /** The name of the key the client used (history records it); none for a trusted client. */
  keyName?: string | null;
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
    const appContext = input.appContext ?? null;
    const source = input.source ?? "api";
    // One hook `api` for the whole dictation: what beforeTranscribe decides holds for the rest.
    const dictation = deps.newDictation();
    let recognised: Recognised;
    try {
      recognised = await recognition.recognise({
        pcm: clip.pcm,
        durationMs: clip.durationMs,
        language: input.language ?? limits.language,
        engine: input.engine,
        model: input.model,
        prompt: input.prompt,
        keywords: input.keywords,
        translate: input.translate,
        words: input.words,
        temperature: input.temperature,
        hooks: { source, appContext, dictation },
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
      appContext,
      skipPostProcess: input.skipPostProcess,
      record: input.record,
      source,
      dictation,
      keyName: input.keyName,
    });
    // A dictation a plugin consumed delivers nothing: no segments either.
    if (input.detail && result.disposition !== "deliver") result.segments = [];
    else if (input.detail) {
      // Timed parts read like the text where its words still line up with the engine's; else
      // (cleanup rephrased it) they keep the engine's text with the dictionary applied.
      const finished = input.skipPostProcess ? null : finishedSegments(recognised.segments, result.text);
      result.segments =
        finished ??
        recognised.segments.map((segment) =>
          input.skipPostProcess ? segment : { ...segment, text: deps.dictionary(segment.text) },
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
