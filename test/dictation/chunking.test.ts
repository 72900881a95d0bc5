import { describe, expect, test } from "bun:test";
import { splitAudio } from "../../src/dictation/chunking.ts";

const rate = 16_000;

function tone(seconds: number, silences: number[] = []): Float32Array {
  const pcm = new Float32Array(Math.round(seconds * rate));
  for (let i = 0; i < pcm.length; i++) pcm[i] = 0.5 * Math.sin((2 * Math.PI * 440 * i) / rate);
  for (const at of silences) pcm.fill(0, Math.round(at * rate), Math.round((at + 0.2) * rate));
  return pcm;
}

describe("splitAudio", () => {
  test("keeps audio that fits one window whole", () => {
    const pcm = tone(10);
    expect(splitAudio(pcm, 30 * rate)).toEqual([pcm]);
  });

  test("covers every sample exactly once, each chunk within the window", () => {
    const pcm = tone(95);
    const chunks = splitAudio(pcm, 30 * rate);
    expect(chunks.length).toBe(4);
    expect(chunks.reduce((sum, chunk) => sum + chunk.length, 0)).toBe(pcm.length);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(30 * rate);
  });

  test("cuts in a pause near the end of the window rather than mid-sound", () => {
    const pcm = tone(50, [26]);
    const [first] = splitAudio(pcm, 30 * rate);
    const cutSeconds = (first?.length ?? 0) / rate;
    expect(cutSeconds).toBeGreaterThanOrEqual(26);
    expect(cutSeconds).toBeLessThanOrEqual(26.2);
  });
});
