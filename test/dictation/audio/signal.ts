import { expect } from "bun:test";
import { isAppError } from "../../../src/errors.ts";

export const FIXTURES = new URL("../../fixtures/audio/", import.meta.url);

export async function fixture(name: string): Promise<Uint8Array> {
  return new Uint8Array(await Bun.file(new URL(name, FIXTURES)).arrayBuffer());
}

/**
 * Least-squares fit of one sinusoid at `frequency` to the middle 80% of `pcm` (edges hold codec
 * and filter start-up): its amplitude and the RMS of what is left. A clean tone leaves ~nothing.
 */
export function fitTone(pcm: Float32Array, rate: number, frequency: number) {
  const start = Math.floor(pcm.length * 0.1);
  const end = Math.floor(pcm.length * 0.9);
  let ss = 0;
  let cc = 0;
  let sc = 0;
  let ys = 0;
  let yc = 0;
  for (let i = start; i < end; i++) {
    const s = Math.sin((2 * Math.PI * frequency * i) / rate);
    const c = Math.cos((2 * Math.PI * frequency * i) / rate);
    const y = pcm[i] ?? 0;
    ss += s * s;
    cc += c * c;
    sc += s * c;
    ys += y * s;
    yc += y * c;
  }
  const det = ss * cc - sc * sc;
  const a = (ys * cc - yc * sc) / det;
  const b = (yc * ss - ys * sc) / det;
  let residual = 0;
  for (let i = start; i < end; i++) {
    const fitted =
      a * Math.sin((2 * Math.PI * frequency * i) / rate) + b * Math.cos((2 * Math.PI * frequency * i) / rate);
    residual += ((pcm[i] ?? 0) - fitted) ** 2;
  }
  return { amplitude: Math.hypot(a, b), residualRms: Math.sqrt(residual / (end - start)) };
}

/** Frequency from zero crossings over the middle 80%: exact enough for one pure tone. */
export function zeroCrossingHz(pcm: Float32Array, rate: number): number {
  const start = Math.floor(pcm.length * 0.1);
  const end = Math.floor(pcm.length * 0.9);
  let crossings = 0;
  for (let i = start + 1; i < end; i++) if ((pcm[i - 1] ?? 0) < 0 !== (pcm[i] ?? 0) < 0) crossings++;
  return (crossings / 2) * (rate / (end - start));
}

export function rms(pcm: Float32Array): number {
  let sum = 0;
  for (const value of pcm) sum += value * value;
  return Math.sqrt(sum / Math.max(1, pcm.length));
}

export function maxDifference(a: Float32Array, b: Float32Array): number {
  expect(a.length).toBe(b.length);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs((a[i] ?? 0) - (b[i] ?? 0)));
  return max;
}

/** Awaits `promise` and asserts it failed with this AppError status and code. */
export async function expectAppError(promise: Promise<unknown>, status: number, code: string) {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!isAppError(error)) throw new Error(`expected AppError ${code}, got ${String(error)}`);
  expect({ status: error.status as number, code: error.code as string }).toEqual({ status, code });
  return error;
}
