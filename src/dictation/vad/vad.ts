import { reasonOf } from "../../errors.ts";
import type { Logger } from "../../logger.ts";
import { SAMPLE_RATE } from "../audio/index.ts";
import { energyModel } from "./energy.ts";
import { createRegionTracker, defaultRegionOptions, type RegionOptions } from "./regions.ts";
import {
  type DetectorKind,
  FRAME_SAMPLES,
  type FrameModel,
  type FrameScorer,
  type SpeechRegion,
} from "./types.ts";

export interface VadOptions {
  logger?: Pick<Logger, "info" | "warn">;
  /** Loads the model; Silero unless given (tests pass one that fails, to reach the fallback). */
  load?: () => Promise<FrameModel>;
  regions?: Partial<RegionOptions>;
}

/** The speech being spoken, as far as the detector has scored the audio. */
export interface OpenRegion {
  /** Where its region starts (padded). */
  startMs: number;
  /** It has lasted long enough to count as speech. */
  confirmed: boolean;
  /**
   * Where the region will end if the pause now under way closes it (its padded end, as `push` will
   * answer it); null while speech goes on. Absent: this detector cannot tell in advance.
   */
  endsAtMs?: number | null;
}

/** One stream of 16 kHz mono audio, fed in chunks of any length. */
export interface VadStream {
  /** Scores the new audio; answers the regions whose closing pause it completed. */
  push(pcm: Float32Array): Promise<SpeechRegion[]>;
  /** Ends the stream: answers the region still open, if any, closed at the end of the audio. */
  end(): Promise<SpeechRegion[]>;
  /**
   * The speech being spoken in the audio scored so far: where its region starts and whether it
   * has lasted long enough to count, and where a pause under way would end it; `null` while
   * nobody speaks (a pause long enough closed the region).
   */
  open(): OpenRegion | null;
  /** No region answered from now on starts before this many ms: earlier audio may be forgotten. */
  horizonMs(): number;
  /** Scores nothing more: audio pushed and not yet scored is dropped (its dictation was cancelled). */
  cancel(): void;
}

export interface Vad {
  /** The detector in use, once loaded (`null` before, and after it is unloaded). */
  readonly kind: DetectorKind | null;
  /** Loads the detector now rather than on first use; logs which one loaded. */
  warmUp(): Promise<DetectorKind>;
  /**
   * Gives the loaded detector's memory back unless a stream or clip is being scored; the next use
   * loads it again. Answers false while one is (nothing given back), true once nothing is held.
   */
  unload(): Promise<boolean>;
  stream(): VadStream;
  /** The speech probability of each 32 ms frame of a whole clip. */
  probabilities(pcm: Float32Array): Promise<Float32Array>;
  speechRegions(pcm: Float32Array): Promise<SpeechRegion[]>;
  /** Whether a clip holds any speech; stops at the first region long enough to count. */
  hasSpeech(pcm: Float32Array, signal?: AbortSignal): Promise<boolean>;
}

const loadSileroModel = async () => (await import("./silero.ts")).loadSilero();

/** The frames of a clip; the last one is padded with silence. */
function* frames(pcm: Float32Array): Generator<Float32Array> {
  for (let at = 0; at < pcm.length; at += FRAME_SAMPLES) {
    const frame = pcm.subarray(at, at + FRAME_SAMPLES);
    if (frame.length === FRAME_SAMPLES) yield frame;
    else {
      const padded = new Float32Array(FRAME_SAMPLES);
      padded.set(frame);
      yield padded;
    }
  }
}

/** Silero VAD, loaded on first use; the energy detector when it cannot load (said once, in the log). */
export function createVad(options: VadOptions = {}): Vad {
  const regionOptions = { ...defaultRegionOptions, ...options.regions };
  let loaded: Promise<FrameModel> | undefined;
  let kind: DetectorKind | null = null;
  /** Streams open and clips being scored: the model is not unloaded under them. */
  let users = 0;

  /** A scorer for one stream or clip, counted as a user until `done`. */
  async function borrow(): Promise<{ scorer: FrameScorer; done(): void }> {
    users++;
    let returned = false;
    try {
      const scorer = (await model()).scorer();
      return {
        scorer,
        done() {
          if (returned) return;
          returned = true;
          users--;
          scorer.release?.();
        },
      };
    } catch (error) {
      users--;
      throw error;
    }
  }

  function model(): Promise<FrameModel> {
    loaded ??= (async () => {
      const started = performance.now();
      let chosen: FrameModel;
      try {
        chosen = await (options.load ?? loadSileroModel)();
      } catch (error) {
        options.logger?.warn("Silero VAD could not load; detecting speech by its energy instead", {
          reason: reasonOf(error),
        });
        chosen = energyModel();
      }
      kind = chosen.kind;
      options.logger?.info("voice activity detector loaded", {
        detector: chosen.kind,
        ms: Math.round(performance.now() - started),
      });
      return chosen;
    })();
    return loaded;
  }

  function stream(): VadStream {
    const lease = borrow();
    const tracker = createRegionTracker(regionOptions);
    let pending = new Float32Array(0);
    let samples = 0;
    // Chunks are scored in the order they came, even when a caller does not wait for each.
    let order: Promise<unknown> = Promise.resolve();
    let cancelled = false;

    async function consume(pcm: Float32Array): Promise<SpeechRegion[]> {
      const { scorer: score } = await lease;
      const closed: SpeechRegion[] = [];
      for (const frame of frames(pcm)) {
        // A flood of cancelled connections would otherwise leave the detector its whole backlog.
        if (cancelled) return [];
        const region = tracker.push(await score.score(frame));
        if (region) closed.push(region);
      }
      return closed;
    }

    function inOrder(step: () => Promise<SpeechRegion[]>): Promise<SpeechRegion[]> {
      const next = order.then(step);
      order = next.catch(() => {});
      return next;
    }

    return {
      push(pcm) {
        samples += pcm.length;
        const joined = new Float32Array(pending.length + pcm.length);
        joined.set(pending);
        joined.set(pcm, pending.length);
        const whole = joined.length - (joined.length % FRAME_SAMPLES);
        pending = joined.slice(whole);
        return inOrder(() => consume(joined.subarray(0, whole)));
      },
      end() {
        const rest = pending;
        pending = new Float32Array(0);
        return inOrder(async () => {
          const closed = await consume(rest);
          (await lease).done();
          const last = tracker.end((samples / SAMPLE_RATE) * 1000);
          return last ? [...closed, last] : closed;
        });
      },
      open() {
        const startMs = tracker.openStartMs;
        return startMs === null
          ? null
          : { startMs, confirmed: tracker.confirmed, endsAtMs: tracker.pauseEndMs };
      },
      horizonMs: () => tracker.horizonMs,
      cancel() {
        cancelled = true;
        pending = new Float32Array(0);
        lease.then((held) => held.done()).catch(() => {});
      },
    };
  }

  return {
    get kind() {
      return kind;
    },
    async warmUp() {
      return (await model()).kind;
    },
    async unload() {
      const current = loaded;
      if (users > 0) return false;
      if (!current) return true;
      loaded = undefined;
      kind = null;
      await (await current.catch(() => undefined))?.close?.();
      options.logger?.info("voice activity detector unloaded");
      return true;
    },
    stream,
    async probabilities(pcm) {
      const { scorer, done } = await borrow();
      try {
        const out = new Float32Array(Math.ceil(pcm.length / FRAME_SAMPLES));
        let i = 0;
        for (const frame of frames(pcm)) out[i++] = await scorer.score(frame);
        return out;
      } finally {
        done();
      }
    },
    async speechRegions(pcm) {
      const vad = stream();
      return [...(await vad.push(pcm)), ...(await vad.end())];
    },
    async hasSpeech(pcm, signal) {
      const { scorer, done } = await borrow();
      try {
        const tracker = createRegionTracker(regionOptions);
        for (const frame of frames(pcm)) {
          signal?.throwIfAborted();
          if (tracker.push(await scorer.score(frame)) || tracker.confirmed) return true;
        }
        return tracker.end((pcm.length / SAMPLE_RATE) * 1000) !== null;
      } finally {
        done();
      }
    },
  };
}
