/**
 * Splits long audio into engine-sized windows so a long file never holds the engine for longer
 * than one window. Cuts land on the quietest 20 ms frame in the last quarter of each window, so
 * words are rarely cut in half.
 */
const frameSamples = 320;

function frameEnergy(pcm: Float32Array, start: number): number {
  let sum = 0;
  const end = Math.min(pcm.length, start + frameSamples);
  for (let i = start; i < end; i++) {
    const sample = pcm[i] ?? 0;
    sum += sample * sample;
  }
  return sum;
}

function quietestCut(pcm: Float32Array, from: number, to: number): number {
  let best = to;
  let bestEnergy = Number.POSITIVE_INFINITY;
  for (let start = to - frameSamples; start >= from; start -= frameSamples) {
    const energy = frameEnergy(pcm, start);
    if (energy < bestEnergy) {
      bestEnergy = energy;
      best = start + frameSamples / 2;
    }
  }
  return best;
}

export function splitAudio(pcm: Float32Array, windowSamples: number): Float32Array[] {
  if (pcm.length <= windowSamples) return [pcm];
  const chunks: Float32Array[] = [];
  let start = 0;
  while (pcm.length - start > windowSamples) {
    const limit = start + windowSamples;
    const cut = quietestCut(pcm, start + Math.floor((windowSamples * 3) / 4), limit);
    chunks.push(pcm.subarray(start, cut));
    start = cut;
  }
  chunks.push(pcm.subarray(start));
  return chunks;
}
