import type { DictationApi } from "../../plugins/hook-api.ts";
import { SAMPLE_RATE } from "../audio/index.ts";
import type { PieceInput, Recognised, Recogniser } from "../recognise.ts";
import { noTimings, type Timings } from "../result.ts";
import type { SpeechRegion } from "../vad/types.ts";
import type { VadStream } from "../vad/vad.ts";
import type { createPcmBuffer } from "./pcm-buffer.ts";

// A live session's speculative work, in the scheduler's guess lane: guesses at the piece being
// spoken, and the early recognition of a piece its pause is closing. Neither runs hooks (they see
// each piece once, when it is committed), and both yield to any other work for the engine.

/** Where a live session stands, read by its guesses at each step. */
export interface LiveProgress {
  state: "open" | "stopping" | "over";
  /** Where the committed audio ends, in ms. */
  committedMs: number;
  /** Samples the detector has judged: a guess must not run ahead of a pause it has not seen. */
  judged: number;
  /** Committed pieces waiting for the engine. */
  pending: number;
  /** Pieces committed so far: a guess that began before the last is stale. */
  commits: number;
}

export interface GuessDeps {
  transcriber: Pick<Recogniser, "recognisePiece" | "isIdle" | "plainPieces">;
  vad: Pick<VadStream, "open">;
  audio: Pick<ReturnType<typeof createPcmBuffer>, "slice">;
  progress: Readonly<LiveProgress>;
  /** What a piece recognised now is asked with (the text said so far as its prompt). */
  piece(): PieceInput["request"];
  /** The session's: aborted, everything under way stops. */
  signal: AbortSignal;
  /** The committed pieces' engine time (the budget's measure); an adopted piece adds its own. */
  timings: Timings;
  /** The session's hook `api`: once it ended, a piece recognised early is not adopted. */
  dictation: DictationApi;
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
}

/** A piece recognised while its closing pause was still being heard, claimed by its commit. */
export interface EarlyPiece {
  /** Its result as the committed piece's, its engine time added; null: recognise it as usual. */
  adopt(): Promise<Recognised | null>;
}

export interface Guesses {
  /** The detector has judged more audio: the piece it is closing may start early, or the open one be guessed. */
  afterDetect(): void;
  /** The committed pieces are all done: the piece now pausing may start early. */
  idle(): void;
  /** `region` is committed: its early recognition, if one ran for exactly it (else that one is dropped). */
  claim(region: SpeechRegion): EarlyPiece | null;
  /** The session is stopping: a running guess stops. */
  stop(): void;
}

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

const ms = (samples: number) => (samples / SAMPLE_RATE) * 1000;

export function createGuesses(deps: GuessDeps): Guesses {
  const { transcriber, vad, audio, progress, timings } = deps;
  const partialEveryMs = deps.partialEveryMs ?? 500;
  const partialBudget = deps.partialBudget ?? 0.35;
  let guessedAtMs = 0;
  /** Where the piece last guessed starts: a new piece is guessed as soon as it is confirmed. */
  let guessedPieceMs: number | null = null;
  let partial: AbortController | null = null;
  /** Engine time the guesses have used (committed pieces add theirs to `timings.engine`). */
  let guessedMs = 0;
  /**
   * What the last guess that ran to its end cost: the next starts only if that much more still
   * fits the budget, so guesses stay within it rather than overshoot it by one each time.
   */
  let lastGuessMs = 0;
  /** The piece a pause is about to close, already being recognised (see `anticipate`). */
  let early: Early | null = null;

  /** `pcm` in the guess lane, until the session ends or `stop` aborts; engine time goes to `spent`. */
  const guessPiece = (pcm: Float32Array, stop: AbortSignal, spent: Timings) =>
    transcriber.recognisePiece({
      pcm,
      request: deps.piece(),
      hooks: null,
      guess: true,
      signal: AbortSignal.any([deps.signal, stop]),
      timings: spent,
    });

  /** The early recognition of a piece, as its committed result; null when it yielded or failed. */
  async function adopt(anticipated: Early): Promise<Recognised | null> {
    const piece = await anticipated.result;
    // A hook registered since (or a dictation it ended) must see the piece as every piece is seen.
    if (piece === null || !transcriber.plainPieces() || deps.dictation.ended) return null;
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
    if (progress.state !== "open" || progress.pending > 0) return;
    const open = vad.open();
    const endsAtMs = open?.endsAtMs ?? null;
    if (early) {
      if (open?.startMs !== early.startMs || endsAtMs !== early.endMs) dropEarly();
      return;
    }
    if (!open?.confirmed || endsAtMs === null || ms(progress.judged) < endsAtMs) return;
    const startMs = Math.max(progress.committedMs, open.startMs);
    if (endsAtMs - startMs < minPartialMs || !transcriber.plainPieces()) return;
    // A guess at the same audio would tell nothing more.
    partial?.abort();
    const stopper = new AbortController();
    const spent = noTimings();
    const before = progress.commits;
    const result = guessPiece(audio.slice(startMs, endsAtMs), stopper.signal, spent).then(
      (piece) => {
        // Still open: what the piece will say, shown as the guess it is until the pause closes it.
        const current = early?.controller === stopper && progress.commits === before;
        if (current && progress.state === "open" && piece.text !== "") deps.onPartial?.(piece.text);
        return piece;
      },
      () => null,
    );
    early = { startMs: open.startMs, endMs: endsAtMs, controller: stopper, spent, result };
  }

  /**
   * Guesses the piece being spoken when the engine is free: as soon as the detector is sure speech
   * began, then once per `partialEveryMs` of new audio; never during a pause.
   */
  function guess(): void {
    const { onPartial } = deps;
    if (!onPartial || progress.state !== "open" || partial || early || progress.pending > 0) return;
    const open = vad.open();
    if (!open?.confirmed) return;
    // A pause under way: the piece itself is about to be recognised (early, once the pause has
    // lasted as long as the padding), and its text shown; a guess now would be thrown away.
    if (open.endsAtMs != null && transcriber.plainPieces()) return;
    // Only audio the detector has judged: a guess must not run ahead of a pause it has not seen.
    const nowMs = ms(progress.judged);
    const fromMs = Math.max(progress.committedMs, open.startMs);
    const fresh = open.startMs !== guessedPieceMs;
    if ((!fresh && nowMs - guessedAtMs < partialEveryMs) || nowMs - fromMs < minPartialMs) return;
    const budgetMs = partialBudget * Math.max(timings.engine, (nowMs / 1000) * guessFloorMsPerSecond);
    if (guessedMs + lastGuessMs >= budgetMs || !transcriber.isIdle()) return;
    guessedAtMs = nowMs;
    guessedPieceMs = open.startMs;
    const guessing = new AbortController();
    partial = guessing;
    const before = progress.commits;
    const spent = noTimings();
    guessPiece(audio.slice(fromMs, nowMs), guessing.signal, spent)
      .then(
        (piece) => {
          lastGuessMs = spent.engine;
          // A piece committed meanwhile makes this guess stale.
          const current = progress.commits === before && progress.pending === 0;
          if (piece.text !== "" && current && progress.state === "open") onPartial(piece.text);
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

  return {
    afterDetect() {
      anticipate();
      guess();
    },
    idle: anticipate,
    claim(region) {
      partial?.abort();
      const claimed =
        early && early.startMs === region.startMs && early.endMs === region.endMs ? early : null;
      if (!claimed) {
        dropEarly();
        return null;
      }
      early = null;
      return { adopt: () => adopt(claimed) };
    },
    stop() {
      partial?.abort();
    },
  };
}
