import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DictateServer, serveDictation } from "../helpers/dictate-server.ts";

// A long compressed upload is decoded and scored off the event loop: this process serves svc, so
// any stretch of main-thread work shows directly as a slow /api/health beside the upload.

const seconds = 590;
const healthEveryMs = 100;
const healthWithinMs = 500;
let dir: string;
let server: DictateServer;

/**
 * White noise as a phone would send it: Opus at 6 kbit/s, about 330 KiB for 590 s. Encoding takes
 * seconds, so the file is kept in the temp directory for the next run (written whole, then renamed).
 */
function noiseOpus(container: "ogg" | "webm"): Uint8Array<ArrayBuffer> {
  const cached = join(tmpdir(), `svc-test-noise-${seconds}s-6k.${container}`);
  if (!existsSync(cached)) {
    const target = join(dir, `noise.${container}`);
    const source = `anoisesrc=d=${seconds}:c=white:r=48000:a=0.3:seed=1`;
    const args = ["-f", "lavfi", "-i", source, "-ac", "1", "-c:a", "libopus", "-b:a", "6k", target];
    const result = Bun.spawnSync(["ffmpeg", "-loglevel", "error", "-y", ...args]);
    if (result.exitCode !== 0) throw new Error(`ffmpeg failed: ${result.stderr.toString()}`);
    renameSync(target, cached);
  }
  return new Uint8Array(readFileSync(cached));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-event-loop-"));
  server = serveDictation();
  server.app.services.settings.set("stt_engine", "sphinx");
  // The detector and engine load before the clock starts: loading is not what is measured.
  await server.app.dictation.warmUp();
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Polls /api/health on a fixed 100 ms schedule until `work` settles. A poll's latency counts from
 * when it was due, not when it was sent: the client shares this event loop, so a blocked loop
 * delays the sending too, as it would delay the answer to a monitor elsewhere.
 */
async function healthBeside<T>(work: Promise<T>): Promise<{ result: T; latencies: number[] }> {
  const latencies: number[] = [];
  let done = false;
  const settled = work.finally(() => {
    done = true;
  });
  const poll = (async () => {
    const start = performance.now();
    for (let due = start; !done; due += healthEveryMs) {
      await Bun.sleep(Math.max(0, due - performance.now()));
      const res = await fetch(`http://127.0.0.1:${server.port}/api/health`);
      await res.arrayBuffer();
      latencies.push(performance.now() - due);
    }
  })();
  const result = await settled;
  await poll;
  return { result, latencies };
}

describe("POST /api/transcribe of a long Opus upload", () => {
  for (const [container, type] of [
    ["ogg", "audio/ogg"],
    ["webm", "audio/webm;codecs=opus"],
  ] as const) {
    test(`${container}: /api/health answers within ${healthWithinMs} ms all through ${seconds} s of noise`, async () => {
      const audio = noiseOpus(container);
      const started = performance.now();
      const { result: res, latencies } = await healthBeside(
        fetch(`http://127.0.0.1:${server.port}/api/transcribe`, {
          method: "POST",
          body: audio,
          headers: { "content-type": type },
        }),
      );
      const body = (await res.json()) as { text: string; audioDurationMs: number };
      const worst = Math.max(...latencies);
      console.log(
        `${container} ${audio.length} B: upload ${Math.round(performance.now() - started)} ms,` +
          ` health max ${Math.round(worst)} ms over ${latencies.length} polls`,
      );
      expect(res.status).toBe(200);
      // All of it decoded, and no speech found in it.
      expect(Math.round(body.audioDurationMs / 1000)).toBe(seconds);
      expect(body.text).toBe("");
      expect(latencies.length).toBeGreaterThan(5);
      expect(worst).toBeLessThan(healthWithinMs);
    }, 120_000);
  }
});
