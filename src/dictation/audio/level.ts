/** Levels in dBFS (0 = full scale), floored at {@link FLOOR_DB} so digital silence stays finite. */
export interface AudioLevel {
  /** RMS over the whole clip. */
  rmsDb: number;
  /** Largest absolute sample. */
  peakDb: number;
  /** RMS of the loudest 20 ms window: speech anywhere in a long clip shows up here. */
  loudestWindowDb: number;
}

export const FLOOR_DB = -120;
/** Below this, the loudest 20 ms is quieter than a typical microphone's own noise with speech. */
export const DEFAULT_SILENCE_THRESHOLD_DB = -50;

const WINDOW = 320;

/** One pass over 16 kHz mono PCM; about 10 µs per audio second. */
export function measureLevel(pcm: Float32Array): AudioLevel {
  let total = 0;
  let peak = 0;
  let loudest = 0;
  for (let start = 0; start < pcm.length; start += WINDOW) {
    const end = Math.min(start + WINDOW, pcm.length);
    let energy = 0;
    for (let i = start; i < end; i++) {
      const value = pcm[i] ?? 0;
      energy += value * value;
      const magnitude = Math.abs(value);
      if (magnitude > peak) peak = magnitude;
    }
    total += energy;
    loudest = Math.max(loudest, energy / (end - start));
  }
  return {
    rmsDb: toDb(pcm.length ? Math.sqrt(total / pcm.length) : 0),
    peakDb: toDb(peak),
    loudestWindowDb: toDb(Math.sqrt(loudest)),
  };
}

/**
 * True when no 20 ms window reaches `thresholdDb` RMS, so the engine (and its hallucinations
 * on silence) can be skipped. Windowed rather than whole-clip RMS, so one short word in a long
 * quiet recording still counts as speech.
 */
export function isNearSilent(pcm: Float32Array, thresholdDb = DEFAULT_SILENCE_THRESHOLD_DB): boolean {
  return measureLevel(pcm).loudestWindowDb < thresholdDb;
}

const toDb = (amplitude: number) =>
  amplitude > 0 ? Math.max(FLOOR_DB, 20 * Math.log10(amplitude)) : FLOOR_DB;
