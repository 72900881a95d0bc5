// The Vulkan build of whisper.cpp on Mesa's lavapipe, a Vulkan device that runs on the CPU: svc from
// source, a synthetic model, real speech over HTTP. `npm install` (or `npm test`, after it installed
// cmake, glslc, libvulkan-dev, spirv-headers and mesa-vulkan-drivers) makes the build.
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type RunningServer, startBinary } from "../../../helpers/binary.ts";
import { TESTDATA } from "../../../helpers/sphinx-testdata.ts";
import { syntheticModel } from "../../../helpers/synthetic-model.ts";

const root = resolve(import.meta.dir, "../../../..");
const lavapipe = `/usr/share/vulkan/icd.d/lvp_icd.${process.arch === "arm64" ? "aarch64" : "x86_64"}.json`;
const build = join(root, `build/whisper/linux-${process.arch}/vulkan.node`);
const work = mkdtempSync(join(tmpdir(), "svc-vulkan-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** svc serve from source, with a synthetic model active. */
async function serve(env: Record<string, string>): Promise<RunningServer> {
  const dir = mkdtempSync(join(work, "run-"));
  mkdirSync(join(dir, "models"));
  copyFileSync(syntheticModel("micro"), join(dir, "models", "micro.bin"));
  const server = await startBinary(
    { SVC_DB_PATH: join(dir, "svc.db"), SVC_MODELS_DIR: join(dir, "models"), SVC_VAD: "energy", ...env },
    { binary: join(root, "src/main.ts"), emulator: [process.execPath], startMs: 60_000 },
  );
  const put = await fetch(`${server.url}/api/settings/stt_model`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ value: "micro" }),
  });
  expect(put.status).toBe(200);
  return server;
}

const transcribe = (server: RunningServer) =>
  fetch(`${server.url}/api/transcribe`, {
    method: "POST",
    headers: { "content-type": "audio/pcm;rate=16000;channels=1" },
    body: Bun.file(`${TESTDATA}/goforward.raw`),
  });

async function whisperRuntime(server: RunningServer) {
  const { items } = (await (await fetch(`${server.url}/api/engines`)).json()) as {
    items: { id: string; runtime?: { build: string; device: string; note?: string } }[];
  };
  return items.find((item) => item.id === "whisper")?.runtime;
}

describe("whisper on Vulkan (lavapipe)", () => {
  test("the Vulkan build and lavapipe are here (scripts/test-packages.txt, npm install)", () => {
    expect({ build: existsSync(build), lavapipe: existsSync(lavapipe) }).toEqual({
      build: true,
      lavapipe: true,
    });
  });

  test("SVC_WHISPER_DEVICE=vulkan dictates on the device and names it", async () => {
    const server = await serve({ SVC_WHISPER_DEVICE: "vulkan", VK_ICD_FILENAMES: lavapipe });
    try {
      const answer = await transcribe(server);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({ engine: "whisper" });
      const runtime = await whisperRuntime(server);
      expect(runtime?.build).toStartWith("vulkan");
      expect(runtime?.device).toContain("llvmpipe");
      const loaded = server.lines.find((line) => line.msg === "speech model loaded");
      expect(String(loaded?.device)).toContain("llvmpipe");
    } finally {
      await server.stop();
    }
  }, 240_000);

  test("on a GPU two dictations run at once, each getting what it would alone", async () => {
    const server = await serve({ SVC_WHISPER_DEVICE: "vulkan", VK_ICD_FILENAMES: lavapipe });
    type Answer = { text: string; timings: { queue: number; engine: number } };
    try {
      const alone = (await (await transcribe(server)).json()) as Answer;
      const both = await Promise.all([transcribe(server), transcribe(server)]);
      expect(both.map((answer) => answer.status)).toEqual([200, 200]);
      const answers = await Promise.all(both.map(async (answer) => (await answer.json()) as Answer));
      expect(answers.map((answer) => answer.text)).toEqual([alone.text, alone.text]);
      // Neither waited for the other in svc's queue (one at a time, the second would wait a whole run).
      for (const answer of answers) expect(answer.timings.queue).toBeLessThan(alone.timings.engine / 2);
    } finally {
      await server.stop();
    }
  }, 240_000);

  test("auto stays on the CPU when the only Vulkan device is lavapipe, and says why", async () => {
    const server = await serve({ VK_ICD_FILENAMES: lavapipe });
    try {
      expect((await transcribe(server)).status).toBe(200);
      const runtime = await whisperRuntime(server);
      expect(runtime?.device).toBe("CPU");
      expect(runtime?.note).toContain("Vulkan: no discrete or integrated GPU");
      expect(runtime?.note).toContain("CUDA: this svc has no CUDA build");
      expect(server.lines.find((line) => line.msg === "whisper runs on the CPU")?.reason).toContain(
        "llvmpipe",
      );
      // auto looked in a process of its own: the server mapped neither the GPU build nor the loader.
      const maps = readFileSync(`/proc/${server.proc.pid}/maps`, "utf8");
      expect({ build: maps.includes("vulkan.node"), loader: maps.includes("libvulkan") }).toEqual({
        build: false,
        loader: false,
      });
    } finally {
      await server.stop();
    }
  }, 240_000);

  test("a forced vulkan without a driver answers 503 naming Vulkan, and the server stays up", async () => {
    const server = await serve({ SVC_WHISPER_DEVICE: "vulkan", VK_ICD_FILENAMES: "/nonexistent.json" });
    try {
      const answer = await transcribe(server);
      expect(answer.status).toBe(503);
      const { error } = (await answer.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe("engine_unavailable");
      expect(error.message).toContain("Vulkan");
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 240_000);

  test("a forced cuda without its build answers 503 naming CUDA, and the server stays up", async () => {
    const server = await serve({ SVC_WHISPER_DEVICE: "cuda" });
    try {
      const answer = await transcribe(server);
      expect(answer.status).toBe(503);
      const { error } = (await answer.json()) as {
        error: { code: string; message: string; details: { hint: string } };
      };
      expect(error.code).toBe("engine_unavailable");
      expect(error.message).toContain(
        "CUDA (SVC_WHISPER_DEVICE=cuda) cannot be used: this svc has no CUDA build",
      );
      expect(error.details.hint).toContain("libcuda.so.1");
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 240_000);

  test("svc version names the Vulkan build and the device", async () => {
    const proc = Bun.spawnSync([process.execPath, join(root, "src/main.ts"), "version"], {
      env: { PATH: process.env.PATH ?? "", SVC_WHISPER_DEVICE: "vulkan", VK_ICD_FILENAMES: lavapipe },
    });
    expect(proc.stdout.toString()).toMatch(/whisper\.cpp: vulkan \(Vulkan.*\) on Vulkan 0: llvmpipe/);
  });
});
