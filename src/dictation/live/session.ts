import type { AppContext } from "../../formats/app-context.ts";
import type { HistorySource } from "../../history/items.ts";
import type { DictationApi } from "../../plugins/hook-api.ts";
import type { PipelineEvent } from "../../plugins/pipeline-events.ts";
import { SAMPLE_RATE } from "../audio/index.ts";
import type { Completion } from "../complete.ts";
import type { EngineId } from "../engines/types.ts";
import type { EngineRef, HookContext, Recognised, Recogniser } from "../recognise.ts";
import { noTimings, type Timings, type Transcription } from "../result.ts";
import type { SpeechRegion } from "../vad/types.ts";
import type { VadStream } from "../vad/vad.ts";
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

export interface LiveSessionOptions {
  transcriber: LiveTranscriber;
  /** The session's own detector stream. */
  vad: VadStream;
  language?: string;
  /** An installed model for this dictation instead of the `stt_model` setting. */
  model?: string;
  /** The engine `model` belongs to, instead of the `stt_engine` setting. */
  engine?: EngineId;
  /** Terms to bias every piece towards, ahead of the vocabulary (/v1's `keywords`). */
  keywords?: readonly string[];
  /** The caller's prompt, ahead of what was said before each piece. */
  prompt?: string;
  /** true: the engine's text, without the text pipeline (/v1's `x-skip-post-process`). */
  skipPostProcess?: boolean;
  appContext?: AppContext | null;
  /** Each piece as soon as it is recognised, in order. */
  onSegment?(segment: LiveSegment): void;
  /**
   * A revisable guess at the piece still being spoken: at most once per `partialEveryMs` of new
   * audio, only while the engine is otherwise idle and within `partialBudget`; a guess running when
   * other work needs the engine is stopped, so committed pieces never wait for one.
   */
  onPartial?(text: string): void;
  /** Default 500. */
  partialEveryMs?: number;
  /**
   * Engine time guesses may use, as a multiple of the time the committed pieces took (before the
   * first piece, of `guessFloorMsPerSecond` per second heard): the `live_partial_budget` setting,
   * default 0.35. On a machine that gives svc less CPU each guess takes longer, so fewer run.
   */
  partialBudget?: number;
  /** The first failure of the work done while audio arrives; the session is over after it. */
  onError?(error: unknown): void;
  /** The door it came in by (history, the plugin hooks' `source`); default `live`. */
  source?: HistorySource;
  /** The name of the key the client used (history records it); none for a trusted client. */
  keyName?: string | null;
  /** false: the result is not stored in history. */
  record?: boolean;
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

/** A piece recognised while its closing pause was still being heard (see `anticipate`). */
interface Early {
  /** The region it is for: where it starts, and where it ends if the pause closes it. */
  startMs: number;
  endMs: number;
  controller: AbortController;
  /** Its engine time; the piece's own if adopted, a guess's if dropped. */
  spent: Timings;
  /** null: it yielded to other work or failed, and the piece is recognised as usual. */
  result: Promise<Recognised | null>;
}

/** What guesses may use before the first committed piece has measured the engine: ms per second heard. */
const guessFloorMsPerSecond = 100;

/** A guess at less audio than this is not worth the engine's time. */
const minPartialMs = 300;

/** Enough of the text said so far to steer the next piece; the engine trims it to its budget. */
const promptChars = 600;

const ms = (samples: number) => (samples / SAMPLE_RATE) * 1000;

/**
 * Live dictation over a voice-activity detector: every region closed by a pause is recognised at
 * once (the text before it as the prompt), so at `stop` only the tail is left to wait for.
 */
export function createLiveSession(options: LiveSessionOptions): LiveSession {
  const { transcriber, vad } = options;
  const controller = new AbortController();
  const audio = createPcmBuffer();
  const timings = noTimings();
  const texts: string[] = [];
  let language = options.language;
  let engine: EngineRef | null = null;
  // One hook `api` for the session: a piece a plugin consumes ends the whole dictation.
  const hooks: HookContext = {
    source: options.source ?? "live",
    appContext: options.appContext ?? null,
    dictation: transcriber.newDictation(),
  };
  let detecting: Promise<void> = Promise.resolve();
  let work: Promise<void> = Promise.resolve();
  let failure: { error: unknown } | null = null;
  let state: "open" | "stopping" | "over" = "open";
  // Where the committed audio ends, how many pieces wait for the engine, and the partial's state.
  let committedMs = 0;
  let judged = 0;
  let pending = 0;
  let commits = 0;
  let guessedAtMs = 0;
  /** Where the piece last guessed starts: a new piece is guessed as soon as it is confirmed. */
  let guessedPieceMs: number | null = null;
  let partial: AbortController | null = null;
  const partialEveryMs = options.partialEveryMs ?? 500;
  const partialBudget = options.partialBudget ?? 0.35;
  /** Engine time the guesses have used (committed pieces add theirs to `timings.engine`). */
  let guessedMs = 0;
  /**
   * What the last guess that ran to its end cost: the next starts only if that much more still
   * fits the budget, so guesses stay within it rather than overshoot it by one each time.
   */
  let lastGuessMs = 0;
  /** The piece a pause is about to close, already being recognised (see `anticipate`). */
  let early: Early | null = null;
  transcriber.notify?.({ type: "recordingStarted" });

  function fail(error: unknown): void {
    if (failure) return;
    failure = { error };
    controller.abort(error);
    if (state !== "over") options.onError?.(error);
  }

  /** The caller's prompt, then the text said so far, within what steers the next piece. */
  const promptNow = () =>
    [options.prompt, ...texts].filter(Boolean).join(" ").slice(-promptChars) || undefined;
  const choice = { engine: options.engine, model: options.model, keywords: options.keywords };

  async function recognise(
    region: SpeechRegion,
    pcm: Float32Array,
    anticipated: Early | null,
  ): Promise<void> {
    if (controller.signal.aborted) return;
    const piece = (anticipated && (await adopt(anticipated))) ?? (await recognisePiece(pcm));
    // The engine that heard the dictation names it; a plugin only when it answered every piece.
    const answeredByPlugin = piece.engine.model.startsWith("plugin:");
    if (engine === null || !answeredByPlugin) engine = piece.engine;
    if (language === undefined || language === "auto") language = piece.language;
    commits++;
    if (piece.text === "") return;
    texts.push(piece.text);
    if (!controller.signal.aborted) options.onSegment?.({ text: piece.text, ...region });
  }

  const recognisePiece = (pcm: Float32Array) =>
    transcriber.recognisePiece({
      pcm,
      language,
      ...choice,
      prompt: promptNow(),
      hooks,
      signal: controller.signal,
      timings,
    });

  /**
   * `pcm` recognised in the guess lane (it yields to any other work), until the session ends or
   * `stop` aborts; its engine time goes to `spent`. Hooks see each piece once, when it is
   * committed: a guess, and a piece recognised early, are the engine's alone.
   */
  const guessPiece = (pcm: Float32Array, stop: AbortSignal, spent: Timings) =>
    transcriber.recognisePiece({
      pcm,
      language,
      ...choice,
      prompt: promptNow(),
      hooks: null,
      guess: true,
      signal: AbortSignal.any([controller.signal, stop]),
      timings: spent,
    });

  /** The early recognition of a piece, as its committed result; null when it yielded or failed. */
  async function adopt(anticipated: Early): Promise<Recognised | null> {
    const piece = await anticipated.result;
    // A hook registered since (or a dictation it ended) must see the piece as every piece is seen.
    if (piece === null || !transcriber.plainPieces() || hooks.dictation.ended) return null;
    timings.queue += anticipated.spent.queue;
    timings.engine += anticipated.spent.engine;
    return piece;
  }

  /** Stops an early recognition whose pause did not close its piece; its cost counts as a guess's. */
  function dropEarly(): void {
    const dropped = early;
    if (!dropped) return;
    early = null;
    dropped.controller.abort();
    void dropped.result.then(() => {
      guessedMs += dropped.spent.engine;
    });
  }

  /**
   * Recognises the piece being closed before the detector has heard all of its closing pause: once
   * the pause has lasted as long as the padding after speech, the piece's audio is exactly what
   * the detector will answer if the pause goes on, so the engine starts on it at once (in the
   * guess lane: it yields to any other work). If the pause closes the piece, that result is the
   * piece's; if speech resumes first, it is dropped. Only while the engine has nothing else to do
   * for this dictation, and only where a piece goes to the engine as it is (no plugin hook, which
   * must see each piece once): it saves the rest of the pause on the last piece, what the person
   * waits for after stop.
   */
  function anticipate(): void {
    if (state !== "open" || pending > 0) return;
    const open = vad.open();
    const endsAtMs = open?.endsAtMs ?? null;
    if (early) {
      if (open?.startMs !== early.startMs || endsAtMs !== early.endMs) dropEarly();
      return;
    }
    if (!open?.confirmed || endsAtMs === null || ms(judged) < endsAtMs) return;
    const startMs = Math.max(committedMs, open.startMs);
    if (endsAtMs - startMs < minPartialMs || !transcriber.plainPieces()) return;
    // A guess at the same audio would tell nothing more.
    partial?.abort();
    const stopper = new AbortController();
    const spent = noTimings();
    const before = commits;
    const result = guessPiece(audio.slice(startMs, endsAtMs), stopper.signal, spent).then(
      (piece) => {
        // Still open: what the piece will say, shown as the guess it is until the pause closes it.
        if (early?.controller === stopper && commits === before && state === "open" && piece.text !== "")
          options.onPartial?.(piece.text);
        return piece;
      },
      () => null,
    );
    early = { startMs: open.startMs, endMs: endsAtMs, controller: stopper, spent, result };
  }

  function enqueue(regions: SpeechRegion[]): void {
    for (const region of regions) {
      // Cut now: the audio before the detector's horizon is forgotten once this step ends.
      const pcm = audio.slice(region.startMs, region.endMs);
      pending++;
      committedMs = Math.max(committedMs, region.endMs);
      partial?.abort();
      const anticipated =
        early && early.startMs === region.startMs && early.endMs === region.endMs ? early : null;
      if (anticipated) early = null;
      else dropEarly();
      work = work
        .then(() => recognise(region, pcm, anticipated))
        .catch(fail)
        .finally(() => {
          pending--;
          // The engine is free: the piece now pausing may start early. In the detector's order, so
          // that it reads the detector between steps, never with a closed region not yet queued.
          if (pending === 0) detecting = detecting.then(anticipate).catch(fail);
        });
    }
  }

  /**
   * Guesses the piece being spoken when the engine is free: as soon as the detector is sure speech
   * began, then once per `partialEveryMs` of new audio; never during a pause.
   */
  function guess(): void {
    const { onPartial } = options;
    if (!onPartial || state !== "open" || partial || early || pending > 0) return;
    const open = vad.open();
    if (!open?.confirmed) return;
    // A pause under way: the piece itself is about to be recognised (early, once the pause has
    // lasted as long as the padding), and its text shown; a guess now would be thrown away.
    if (open.endsAtMs != null && transcriber.plainPieces()) return;
    // Only audio the detector has judged: a guess must not run ahead of a pause it has not seen.
    const nowMs = ms(judged);
    const fromMs = Math.max(committedMs, open.startMs);
    const fresh = open.startMs !== guessedPieceMs;
    if ((!fresh && nowMs - guessedAtMs < partialEveryMs) || nowMs - fromMs < minPartialMs) return;
    const budgetMs = partialBudget * Math.max(timings.engine, (nowMs / 1000) * guessFloorMsPerSecond);
    if (guessedMs + lastGuessMs >= budgetMs || !transcriber.isIdle()) return;
    guessedAtMs = nowMs;
    guessedPieceMs = open.startMs;
    const guessing = new AbortController();
    partial = guessing;
    const before = commits;
    const spent = noTimings();
    guessPiece(audio.slice(fromMs, nowMs), guessing.signal, spent)
      .then(
        (piece) => {
          lastGuessMs = spent.engine;
          // A piece committed meanwhile makes this guess stale.
          if (piece.text !== "" && commits === before && pending === 0 && state === "open")
            onPartial(piece.text);
        },
        // A guess that fails costs nothing: the committed piece will be recognised anyway.
        () => {},
      )
      .finally(() => {
        // A guess stopped halfway cost what it ran.
        guessedMs += spent.engine;
        if (partial === guessing) partial = null;
      });
  }

  function detect(step: () => Promise<SpeechRegion[]>): Promise<void> {
    detecting = detecting.then(async () => {
      if (!controller.signal.aborted) enqueue(await step());
      anticipate();
      guess();
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
      if (state !== "open") return;
      audio.append(pcm);
      const copy = pcm.slice();
      void detect(async () => {
        const closed = await vad.push(copy);
        judged += copy.length;
        return closed;
      });
    },
    async stop() {
      if (state !== "open") throw new Error("the session has already ended");
      state = "stopping";
      transcriber.notify?.({ type: "recordingCommitted" });
      partial?.abort();
      const started = performance.now();
      await detect(() => vad.end());
      await work;
      if (failure) {
        state = "over";
        throw failure.error;
      }
      state = "over";
      const used = engine ?? (await transcriber.activeEngine());
      return transcriber.complete({
        raw: texts.join(" ").trim(),
        language: language ?? "auto",
        engine: used,
        audioDurationMs: ms(audio.length),
        started,
        timings,
        appContext: hooks.appContext,
        source: hooks.source,
        keyName: options.keyName,
        record: options.record,
        skipPostProcess: options.skipPostProcess,
        dictation: hooks.dictation,
      });
    },
    setAppContext(appContext) {
      hooks.appContext = appContext;
    },
    cancel(reason) {
      if (state !== "over") transcriber.notify?.({ type: "recordingCancelled" });
      state = "over";
      failure ??= { error: reason };
      vad.cancel();
      controller.abort(reason ?? new DOMException("The dictation was cancelled.", "AbortError"));
    },
  };
}
