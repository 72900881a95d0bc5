import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeWav } from "../../../src/dictation/audio/index.ts";
import { type RunningServer, startBinary } from "../../helpers/binary.ts";
import { goForward } from "../../helpers/sphinx-testdata.ts";
import { until } from "../../helpers/until.ts";
import { pinkNoise } from "./noise.ts";

// The compiled binary, copied to a temporary folder and started there: no node_modules within
// reach, so Silero's weights and ONNX Runtime's WebAssembly must come from inside the executable.

let dir: string;
let server: RunningServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-e2e-vad-"));
  server = await startBinary({ SVC_DB_PATH: join(dir, "svc.db") }, { cwd: dir });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const loadedLine = () =>
  until(
    () => server.lines.find((l) => l.msg === "voice activity detector loaded"),
    (line): line is Record<string, unknown> => line !== undefined,
    { timeoutMs: 20_000, everyMs: 100, what: 'a "voice activity detector loaded" line' },
  );

async function transcribe(pcm: Float32Array): Promise<{ raw: string; engine: string }> {
  const res = await fetch(`${server.url}/api/transcribe`, {
    method: "POST",
    body: encodeWav(pcm),
    headers: { "content-type": "audio/wav" },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { raw: string; engine: string };
}

describe("the compiled binary's voice-activity detector", () => {
  test("Silero loads on first use, from inside the executable, not the energy fallback", async () => {
    // Nothing heavy at start: the detector loads with the first dictation.
    expect(server.lines.filter((l) => l.msg === "voice activity detector loaded")).toEqual([]);
    const put = await fetch(`${server.url}/api/settings/stt_engine`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ value: "sphinx" }),
    });
    expect(put.status).toBe(200);
    await transcribe(goForward());
    expect(await loadedLine()).toMatchObject({ level: "info", detector: "silero", ms: expect.any(Number) });
    expect(server.lines.filter((l) => String(l.msg).startsWith("Silero VAD could not load"))).toEqual([]);
    // Nothing it runs on is mapped from a node_modules folder.
    const maps = readFileSync(`/proc/${server.proc.pid}/maps`, "utf8");
    expect(maps.split("\n").filter((line) => line.includes("node_modules"))).toEqual([]);
  }, 30_000);

  test("noise answers empty text and speech is transcribed (sphinx)", async () => {
    const put = await fetch(`${server.url}/api/settings/stt_engine`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ value: "sphinx" }),
    });
    expect(put.status).toBe(200);
    expect(await transcribe(pinkNoise(5, -25))).toMatchObject({ raw: "", engine: "sphinx" });
    expect(await transcribe(goForward())).toMatchObject({ raw: "go forward ten meters", engine: "sphinx" });
  }, 60_000);
});
