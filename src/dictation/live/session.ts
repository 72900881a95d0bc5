import type { AppContext } from "../../formats/app-context.ts";
import type { DictationApi } from "../../plugins/hook-api.ts";
import type { PipelineEvent } from "../../plugins/pipeline-events.ts";
import { SAMPLE_RATE } from "../audio/index.ts";
import type { Completion } from "../complete.ts";
import type { EngineRef, HookContext, Recogniser } from "../recognise.ts";
import type { DictationRequest } from "../request.ts";
import { noTimings, type Transcription } from "../result.ts";
import type { SpeechRegion } from "../vad/types.ts";
import type { VadStream } from "../vad/vad.ts";
import { createGuesses, type EarlyPiece, type GuessDeps, type LiveProgress } from "./guesses.ts";
import { createPcmBuffer } from "./pcm-buffer.ts";

/** A committed piece of a live dictation, on the session's timeline (ms from its first sample). */
export interface LiveSegment {
  text: string;
  startMs: number;
  endMs: number;
}

/** What a live session needs of the dictation path: its pieces recognised, the whole completed once. */
export interface LiveTranscriber extends Recogniser, Completion {
  /** A new dictation's hook `api`, shared by the session's pieces and its completion. */
  newDictation(): DictationApi;
  /** The plugins' `event` hooks hear the recording start, commit (stop) and cancel. */
  notify?(event: PipelineEvent): void;
}

export interface LiveSessionOptions
  extends Pick<GuessDeps, "onPartial" | "partialEveryMs" | "partialBudget"> {
  transcriber: LiveTranscriber;
  /** The session's own detector stream. */
  vad: VadStream;
  /** Default: a `live` dictation with the settings' choices. */
  request?: DictationRequest;
  /** Each piece as soon as it is recognised, in order. */
  onSegment?(segment: LiveSegment): void;
  /** The first failure of the work done while audio arrives; the session is over after it. */
  onError?(error: unknown): void;
}

export interface LiveSession {
  /** 16 kHz mono audio, in the order it was captured. */
  push(pcm: Float32Array): void;
  /** Recognises the open tail, runs the text pipeline once over the whole text, records it once. */
  stop(): Promise<Transcription>;
  /** Drops everything: queued pieces leave the scheduler, a running one is aborted. */
  cancel(reason?: unknown): void;
  /**
   * Where the user dictates, learnt after the start (the Freestyle desktop app may tell it only
   * at commit): the pieces recognised from now on and the completion use it.
   */
  setAppContext(appContext: AppContext | null): void;
  /** Seconds of audio pushed so far. */
  readonly seconds: number;
  /** Seconds of it still held in memory: the piece being spoken, not the pauses and pieces before. */
  readonly heldSeconds: number;
}

/** Enough of the text said so far to steer the next piece; the engine trims it to its budget. */
const promptChars = 600;

/**
 * Live dictation over a voice-activity detector: every region closed by a pause is recognised at
 * once (the text before it as the prompt), so at `stop` only the tail is left to wait for. The
 * guesses (guesses.ts) fill the engine's idle time between pieces; this file commits the pieces.
 */
export function createLiveSession(options: LiveSessionOptions): LiveSession {
  const { transcriber, vad } = options;
  const controller = new AbortController();
  const audio = createPcmBuffer();
  const timings = noTimings();
  const texts: string[] = [];
  const request = options.request ?? {};
  let language = request.language;
  let engine: EngineRef | null = null;
  // One hook `api` for the session: a piece a plugin consumes ends the whole dictation.
  const hooks: HookContext = {
    source: request.source ?? "live",
    appContext: request.appContext ?? null,
    dictation: transcriber.newDictation(),
  };
  let detecting: Promise<void> = Promise.resolve();
  let work: Promise<void> = Promise.resolve();
  let failure: { error: unknown } | null = null;
  const progress: LiveProgress = { state: "open", committedMs: 0, judged: 0, pending: 0, commits: 0 };
  /** What the next piece is asked: the caller's prompt, then the text said so far, as its prompt. */
  const piece = () => ({
    ...request,
    language,
    prompt: [request.prompt, ...texts].filter(Boolean).join(" ").slice(-promptChars) || undefined,
  });
  const guesses = createGuesses({
    transcriber,
    vad,
    audio,
    progress,
    piece,
    signal: controller.signal,
    timings,
    dictation: hooks.dictation,
    onPartial: options.onPartial,
    partialEveryMs: options.partialEveryMs,
    partialBudget: options.partialBudget,
  });
  transcriber.notify?.({ type: "recordingStarted" });

  function fail(error: unknown): void {
    if (failure) return;
    failure = { error };
    controller.abort(error);
    if (progress.state !== "over") options.onError?.(error);
  }

  async function recognise(region: SpeechRegion, pcm: Float32Array, early: EarlyPiece | null): Promise<void> {
    if (controller.signal.aborted) return;
    const recognised =
      (early && (await early.adopt())) ??
      (await transcriber.recognisePiece({
        pcm,
        request: piece(),
        hooks,
        signal: controller.signal,
        timings,
      }));
    // The engine that heard the dictation names it; a plugin only when it answered every piece.
    const answeredByPlugin = recognised.engine.model.startsWith("plugin:");
    if (engine === null || !answeredByPlugin) engine = recognised.engine;
    if (language === undefined || language === "auto") language = recognised.language;
    progress.commits++;
    if (recognised.text === "") return;
    texts.push(recognised.text);
    if (!controller.signal.aborted) options.onSegment?.({ text: recognised.text, ...region });
  }

  function enqueue(regions: SpeechRegion[]): void {
    for (const region of regions) {
      // Cut now: the audio before the detector's horizon is forgotten once this step ends.
      const pcm = audio.slice(region.startMs, region.endMs);
      progress.pending++;
      progress.committedMs = Math.max(progress.committedMs, region.endMs);
      const early = guesses.claim(region);
      work = work
        .then(() => recognise(region, pcm, early))
        .catch(fail)
        .finally(() => {
          progress.pending--;
          // The engine is free: the piece now pausing may start early. In the detector's order, so
          // that it reads the detector between steps, never with a closed region not yet queued.
          if (progress.pending === 0) detecting = detecting.then(guesses.idle).catch(fail);
        });
    }
  }

  function detect(step: () => Promise<SpeechRegion[]>): Promise<void> {
    detecting = detecting.then(async () => {
      if (!controller.signal.aborted) enqueue(await step());
      guesses.afterDetect();
      audio.dropBefore(vad.horizonMs());
    });
    detecting = detecting.catch(fail);
    return detecting;
  }

  return {
    get seconds() {
      return audio.length / SAMPLE_RATE;
    },
    get heldSeconds() {
      return audio.held / SAMPLE_RATE;
    },
    push(pcm) {
      if (progress.state !== "open") return;
      audio.append(pcm);
      const copy = pcm.slice();
      void detect(async () => {
        const closed = await vad.push(copy);
        progress.judged += copy.length;
        return closed;
      });
    },
    async stop() {
      if (progress.state !== "open") throw new Error("the session has already ended");
      progress.state = "stopping";
      transcriber.notify?.({ type: "recordingCommitted" });
      guesses.stop();
      const started = performance.now();
      await detect(() => vad.end());
      await work;
      progress.state = "over";
      if (failure) throw failure.error;
      const used = engine ?? (await transcriber.activeEngine());
      return transcriber.complete({
        raw: texts.join(" ").trim(),
        language: language ?? "auto",
        engine: used,
        audioDurationMs: (audio.length / SAMPLE_RATE) * 1000,
        started,
        timings,
        // The app context as last learnt (see `setAppContext`).
        request: { ...request, source: hooks.source, appContext: hooks.appContext },
        dictation: hooks.dictation,
      });
    },
    setAppContext(appContext) {
      hooks.appContext = appContext;
    },
    cancel(reason) {
      if (progress.state !== "over") transcriber.notify?.({ type: "recordingCancelled" });
      progress.state = "over";
      failure ??= { error: reason };
      vad.cancel();
      controller.abort(reason ?? new DOMException("The dictation was cancelled.", "AbortError"));
    },
  };
}
