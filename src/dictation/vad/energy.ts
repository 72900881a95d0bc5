import { DEFAULT_SILENCE_THRESHOLD_DB, SAMPLE_RATE } from "../audio/index.ts";
import type { FrameModel, FrameScorer } from "./types.ts";

/** How fast the noise floor follows a louder background: 0.1 dB a frame, about 3 dB a second. */
const FLOOR_RISE_DB = 0.1;
/** Frames this far above the floor score 0; twice as far, 0.5; three times, 1. */
const MARGIN_DB = 5;
/** Two one-pole high-passes at about 250 Hz: hum and rumble carry no speech but most of a room's energy. */
const HIGH_PASS = 1 / (1 + (2 * Math.PI * 250) / SAMPLE_RATE);
/** The longest the detector scores before it lets the event loop take a turn. */
const sliceMs = 5;

/**
 * The fallback when Silero cannot load: a frame is speech as far as its energy above 250 Hz
 * stands out above the background's, whose level it tracks (down at once, up slowly). Steady noise and hum stay at the
 * floor and score 0; speech rises 10–30 dB above it. Cruder than Silero: music or a voice far
 * from the microphone fool it.
 */
export function energyModel(): FrameModel {
  // Scores chain through promises, which never let the event loop in (a 590 s clip held it for
  // 0.2 s): after a few milliseconds of scoring the detector steps aside for a turn.
  let sliceStarted = performance.now();
  const turn = async () => {
    if (performance.now() - sliceStarted < sliceMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    sliceStarted = performance.now();
  };
  function scorer(): FrameScorer {
    let floor: number | null = null;
    let [x1, y1, y2] = [0, 0, 0];
    return {
      async score(frame) {
        await turn();
        let energy = 0;
        for (const x of frame) {
          const first = HIGH_PASS * (y1 + x - x1);
          const second = HIGH_PASS * (y2 + first - y1);
          [x1, y1, y2] = [x, first, second];
          energy += second * second;
        }
        const db = 10 * Math.log10(energy / frame.length + 1e-12);
        floor = floor === null ? db : Math.min(db, floor + FLOOR_RISE_DB);
        if (db < DEFAULT_SILENCE_THRESHOLD_DB) return 0;
        return Math.min(1, Math.max(0, (db - floor - MARGIN_DB) / (2 * MARGIN_DB)));
      },
    };
  }
  return { kind: "energy", scorer };
}
