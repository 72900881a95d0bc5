// Speech-free audio, made in code with a seeded generator so that every run hears the same:
// the backgrounds a microphone picks up when nobody speaks.

const RATE = 16_000;

/** mulberry32: a small seeded PRNG, uniform in [-1, 1). */
function uniform(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
  };
}

/** Scales `pcm` in place to an RMS level in dBFS. */
function atLevel(pcm: Float32Array, db: number): Float32Array {
  const target = 10 ** (db / 20);
  const scale = target / rms(pcm);
  for (let i = 0; i < pcm.length; i++) pcm[i] = (pcm[i] ?? 0) * scale;
  return pcm;
}

export function rms(pcm: Float32Array): number {
  let sum = 0;
  for (const x of pcm) sum += x * x;
  return Math.sqrt(sum / pcm.length);
}

export function whiteNoise(seconds: number, db: number, seed = 1): Float32Array {
  const next = uniform(seed);
  return atLevel(
    new Float32Array(seconds * RATE).map(() => next()),
    db,
  );
}

/** 1/f noise (Paul Kellet's filter): the hiss of a fan or air conditioning. */
export function pinkNoise(seconds: number, db: number, seed = 2): Float32Array {
  const next = uniform(seed);
  const b = [0, 0, 0, 0, 0, 0, 0];
  const out = new Float32Array(seconds * RATE);
  for (let i = 0; i < out.length; i++) {
    const w = next();
    b[0] = 0.99886 * (b[0] ?? 0) + w * 0.0555179;
    b[1] = 0.99332 * (b[1] ?? 0) + w * 0.0750759;
    b[2] = 0.969 * (b[2] ?? 0) + w * 0.153852;
    b[3] = 0.8665 * (b[3] ?? 0) + w * 0.3104856;
    b[4] = 0.55 * (b[4] ?? 0) + w * 0.5329522;
    b[5] = -0.7616 * (b[5] ?? 0) - w * 0.016898;
    out[i] = b.reduce((sum, x) => sum + x, 0) + w * 0.5362;
    b[6] = w * 0.115926;
  }
  return atLevel(out, db);
}

/** Mains hum at 50 Hz with its harmonics over a little hiss. */
export function hum(seconds: number, db: number, seed = 3): Float32Array {
  const next = uniform(seed);
  const out = new Float32Array(seconds * RATE);
  for (let i = 0; i < out.length; i++) {
    const t = (2 * Math.PI * 50 * i) / RATE;
    out[i] = Math.sin(t) + 0.5 * Math.sin(2 * t) + 0.3 * Math.sin(3 * t) + 0.02 * next();
  }
  return atLevel(out, db);
}

/** Brown (random-walk) noise: the low rumble of an empty room, traffic behind a window. */
export function roomTone(seconds: number, db: number, seed = 4): Float32Array {
  const next = uniform(seed);
  const out = new Float32Array(seconds * RATE);
  let value = 0;
  for (let i = 0; i < out.length; i++) {
    value = 0.998 * value + 0.05 * next();
    out[i] = value;
  }
  return atLevel(out, db);
}

/** `speech` with white noise added at `snrDb` below its RMS. */
export function withNoise(speech: Float32Array, snrDb: number, seed = 5): Float32Array {
  const noise = whiteNoise(Math.ceil(speech.length / RATE), 20 * Math.log10(rms(speech)) - snrDb, seed);
  return speech.map((x, i) => x + (noise[i] ?? 0));
}

/** Every kind of background at a quiet, a normal and a loud level. */
export function backgrounds(seconds: number): { name: string; pcm: Float32Array }[] {
  const kinds = { white: whiteNoise, pink: pinkNoise, hum, "room tone": roomTone };
  return Object.entries(kinds).flatMap(([kind, make]) =>
    [-50, -35, -20].map((db) => ({ name: `${kind} at ${db} dBFS`, pcm: make(seconds, db) })),
  );
}
