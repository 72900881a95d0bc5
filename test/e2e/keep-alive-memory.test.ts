import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { type RunningServer, startBinary } from "../helpers/binary.ts";
import { goForward } from "../helpers/sphinx-testdata.ts";

const KEEP_ALIVE_MS = 2000;

let dir: string;
let server: RunningServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-e2e-keep-alive-"));
  server = await startBinary({ SVC_DB_PATH: join(dir, "svc.db"), SVC_MODELS_DIR: join(dir, "models") });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The server process's resident memory (not the detector's process), in MiB. */
const rssMiB = async () =>
  Number(/VmRSS:\s+(\d+)/.exec(await Bun.file(`/proc/${server.proc.pid}/status`).text())?.[1] ?? 0) / 1024;

const put = (key: string, value: unknown) =>
  fetch(`${server.url}/api/settings/${key}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ value }),
  });

describe("keep_alive in the compiled binary", () => {
  test("gives back what a sphinx dictation loaded: RSS within 1.3× idle 10 s after it passes", async () => {
    await Bun.sleep(1000);
    const idle = await rssMiB();
    expect((await put("keep_alive", `${KEEP_ALIVE_MS / 1000}s`)).status).toBe(200);
    expect((await put("stt_engine", "sphinx")).status).toBe(200);
    const res = await fetch(`${server.url}/api/transcribe`, {
      method: "POST",
      headers: { "content-type": "audio/wav" },
      body: encodeWav(goForward()),
    });
    expect(await res.json()).toMatchObject({ engine: "sphinx", raw: "go forward ten meters" });
    const dictated = await rssMiB();
    await Bun.sleep(KEEP_ALIVE_MS + 10_000);
    const after = await rssMiB();
    expect(server.lines.some((line) => line.msg === "speech engines unloaded after keep_alive")).toBe(true);
    // The dictation loaded the decoder (about 100 MiB): the figure below has something to give back.
    expect(dictated).toBeGreaterThan(idle * 1.3);
    expect(after / idle).toBeLessThanOrEqual(1.3);
  }, 60_000);
});
