import { expect, test } from "bun:test";
import { type DecodedAudio, decodeAudio } from "../../../src/dictation/audio/decode.ts";
import { AUDIO_ERROR_CODES } from "../../../src/dictation/audio/errors.ts";
import { isAppError } from "../../../src/errors.ts";
import { mutate, random, seeds } from "./fuzz-cases.ts";

const CASES = 12_000;
const TIME_BUDGET_MS = 25_000;
const MAX_DURATION_MS = 30_000;
const CONTENT_TYPES = [
  undefined,
  "audio/wav",
  "application/octet-stream",
  "audio/pcm",
  "audio/L16;rate=8000;channels=2",
];

/** Plain checks, not expect(): tens of thousands of expect() calls would dominate the heap. */
function checkDecoded(audio: DecodedAudio): void {
  const problems = [
    audio.sampleRate !== 16000 && "sample rate is not 16 kHz",
    !(audio.durationMs > 0 && audio.durationMs <= MAX_DURATION_MS) && `duration ${audio.durationMs} ms`,
    Math.abs(audio.pcm.length - audio.durationMs * 16) > 1 && "sample count does not match the duration",
    audio.pcm.some((value) => !Number.isFinite(value)) && "non-finite sample",
  ].filter(Boolean);
  if (problems.length) throw new Error(`decoded audio is wrong: ${problems.join(", ")}`);
}

// Memory is compared from a warm point: the first mutated files that sniff as MP3 make the
// library allocate its WASM decoder memory (~34 MB each, reused afterwards), which is not a leak.
const WARM_AFTER = 2_000;

test(`decodes ${CASES} mutated WAV files into audio or a coded AppError, in bounded memory`, async () => {
  const bases = seeds();
  const rng = random(0x5eed);
  const outcomes: Record<string, number> = {};
  const rssBefore = process.memoryUsage().rss;
  let peakRss = rssBefore;
  let warmHeap = 0;
  const started = performance.now();
  let done = 0;
  for (; done < CASES && performance.now() - started < TIME_BUDGET_MS; done++) {
    const input = mutate(bases[rng.int(bases.length)] ?? new Uint8Array(0), rng);
    const type = CONTENT_TYPES[rng.int(CONTENT_TYPES.length)];
    try {
      checkDecoded(await decodeAudio(input, type, { maxDurationMs: MAX_DURATION_MS }));
      outcomes.decoded = (outcomes.decoded ?? 0) + 1;
    } catch (error) {
      if (!isAppError(error) || !(AUDIO_ERROR_CODES as readonly string[]).includes(error.code)) {
        const replay = Buffer.from(input).toString("base64");
        throw new Error(`case ${done} (${type}) threw ${String(error)}; input base64: ${replay}`);
      }
      outcomes[error.code] = (outcomes[error.code] ?? 0) + 1;
    }
    if (done % 500 === 0) peakRss = Math.max(peakRss, process.memoryUsage().rss);
    if (done === WARM_AFTER) {
      Bun.gc(true);
      warmHeap = process.memoryUsage().heapUsed;
    }
  }
  Bun.gc(true);
  expect(done).toBeGreaterThanOrEqual(10_000);
  // The mutations must reach every outcome, or this test would prove nothing.
  expect(outcomes.decoded ?? 0).toBeGreaterThan(done / 20);
  expect(outcomes.invalid_audio ?? 0).toBeGreaterThan(done / 50);
  expect(outcomes.unsupported_audio ?? 0).toBeGreaterThan(done / 200);
  expect(process.memoryUsage().heapUsed - warmHeap).toBeLessThan(16 * 1024 * 1024);
  expect(peakRss - rssBefore).toBeLessThan(512 * 1024 * 1024);
}, 60_000);
