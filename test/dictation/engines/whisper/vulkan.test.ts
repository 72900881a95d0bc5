// The Vulkan build of whisper.cpp on Mesa's lavapipe, a Vulkan device that runs on the CPU: svc from
// source, a synthetic model, real speech over HTTP. `npm install` (or `npm test`, after it installed
// cmake, glslc, libvulkan-dev, spirv-headers and mesa-vulkan-drivers) makes the build.
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type RunningServer, startBinary } from "../../../helpers/binary.ts";
import { TESTDATA } from "../../../helpers/sphinx-testdata.ts";
import { syntheticModel } from "../../../helpers/synthetic-model.ts";
import { until } from "../../../helpers/until.ts";

const root = resolve(import.meta.dir, "../../../..");
const lavapipe = `/usr/share/vulkan/icd.d/lvp_icd.${process.arch === "arm64" ? "aarch64" : "x86_64"}.json`;
const build = join(root, `build/whisper/linux-${process.arch}/vulkan.node`);
// Where a CUDA toolkit made cuda.node (no GPU or driver in these tests), it loads no further than
// the missing runtime libraries or driver; elsewhere there is no CUDA build at all.
const cudaReason = existsSync(join(root, `build/whisper/linux-${process.arch}/cuda.node`))
  ? /the CUDA runtime libraries are missing|the NVIDIA driver \(libcuda\.so\.1\) is not installed|no CUDA device/
  : /this svc has no CUDA build/;
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

async function setSetting(server: RunningServer, key: string, value: unknown) {
  const put = await fetch(`${server.url}/api/settings/${key}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ value }),
  });
  expect(put.status).toBe(200);
}

/** The server's child processes that serve an engine on a GPU (`svc __gpu-engine …`). */
function gpuProcesses(parent: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        return ppid === parent && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("__gpu-engine");
      } catch {
        return false; // it ended while being read
      }
    })
    .map(Number);
}

/** After a dictation, the server's GPU process, stopped (SIGSTOP): it can answer nothing now. */
async function stoppedGpuProcess(server: RunningServer): Promise<number> {
  expect((await transcribe(server)).status).toBe(200);
  const [pid] = gpuProcesses(server.proc.pid);
  if (pid === undefined) throw new Error("no GPU process");
  process.kill(pid, "SIGSTOP");
  return pid;
}

/** Whether a process has the Vulkan build and the Vulkan loader mapped. */
function mapsHave(pid: number) {
  const maps = readFileSync(`/proc/${pid}/maps`, "utf8");
  return { build: maps.includes("vulkan.node"), loader: maps.includes("libvulkan") };
}

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
      expect(runtime?.note).toMatch(new RegExp(`CUDA: (${cudaReason.source})`));
      expect(server.lines.find((line) => line.msg === "whisper runs on the CPU")?.reason).toContain(
        "llvmpipe",
      );
      // auto looked in a process of its own: the server mapped neither the GPU build nor the loader.
      expect(mapsHave(server.proc.pid)).toEqual({ build: false, loader: false });
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
      // In words, not the loader's result code.
      expect(error.message).toContain("no Vulkan driver is installed for any card here");
      expect(error.message).not.toContain("VkResult");
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 240_000);

  test("a forced cuda without its build or driver answers 503 naming CUDA; the server stays up", async () => {
    const server = await serve({ SVC_WHISPER_DEVICE: "cuda" });
    try {
      const answer = await transcribe(server);
      expect(answer.status).toBe(503);
      const { error } = (await answer.json()) as {
        error: { code: string; message: string; details: { hint: string } };
      };
      expect(error.code).toBe("engine_unavailable");
      expect(error.message).toMatch(
        new RegExp(`CUDA \\(SVC_WHISPER_DEVICE=cuda\\) cannot be used: (${cudaReason.source})`),
      );
      expect(error.details.hint).toContain("libcuda.so.1");
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 240_000);

  test("on the device whisper runs in a process of its own, which keep_alive ends", async () => {
    const server = await serve({ SVC_WHISPER_DEVICE: "vulkan", VK_ICD_FILENAMES: lavapipe });
    try {
      await setSetting(server, "keep_alive", "1s");
      expect((await transcribe(server)).status).toBe(200);
      const [first] = gpuProcesses(server.proc.pid);
      expect(first).toBeNumber();
      // The GPU build and the Vulkan loader are in that process, never in the server.
      expect(mapsHave(server.proc.pid)).toEqual({ build: false, loader: false });
      expect(mapsHave(first as number)).toEqual({ build: true, loader: true });
      // keep_alive passes: the process ends, and with it everything the device and driver held.
      await until(
        () => gpuProcesses(server.proc.pid),
        (pids) => pids.length === 0,
        {
          timeoutMs: 20_000,
          what: "whisper's GPU process to end after keep_alive",
        },
      );
      await until(() => server.lines.some((line) => line.msg === "speech engines unloaded after keep_alive"));
      // The next dictation starts it again.
      expect((await transcribe(server)).status).toBe(200);
      const [again] = gpuProcesses(server.proc.pid);
      expect(again).toBeNumber();
      // A server killed outright leaves no GPU process behind holding the card.
      await server.stop("SIGKILL");
      await until(() => !existsSync(`/proc/${again}`), Boolean, {
        what: "the GPU process to end with its server",
      });
    } finally {
      await server.stop();
    }
  }, 240_000);

  test("a GPU process that dies fails the dictation it held with a 503; the next starts it again", async () => {
    const server = await serve({ SVC_WHISPER_DEVICE: "vulkan", VK_ICD_FILENAMES: lavapipe });
    try {
      // Stopped, it cannot answer the dictation sent now; then it dies as a crashing driver would.
      const crashed = await stoppedGpuProcess(server);
      const held = transcribe(server);
      await Bun.sleep(300);
      process.kill(crashed, "SIGKILL");
      const answer = await held;
      expect(answer.status).toBe(503);
      const { error } = (await answer.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe("engine_unavailable");
      expect(error.message).toContain("was killed by SIGKILL");
      expect(error.message).toContain("llvmpipe");
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
      const stopped = await until(() => server.lines.find((line) => line.msg === "speech engine stopped"));
      expect(stopped?.engine).toBe("whisper");
      const again = await transcribe(server);
      expect(again.status).toBe(200);
      expect(gpuProcesses(server.proc.pid)).not.toContain(crashed);
      expect(gpuProcesses(server.proc.pid)).toHaveLength(1);
    } finally {
      await server.stop();
    }
  }, 240_000);

  test("a stopped dictation settles at once though the GPU process is stuck, which serves the next", async () => {
    const server = await serve({ SVC_WHISPER_DEVICE: "vulkan", VK_ICD_FILENAMES: lavapipe });
    try {
      const stuck = await stoppedGpuProcess(server);
      await setSetting(server, "transcribe_timeout_seconds", 5);
      const started = performance.now();
      const answer = await transcribe(server);
      const waited = performance.now() - started;
      process.kill(stuck, "SIGCONT");
      expect(answer.status).toBe(504);
      expect(waited).toBeLessThan(9000);
      // The process took the stop with the dictation, and serves the next one itself.
      await setSetting(server, "transcribe_timeout_seconds", 600);
      expect((await transcribe(server)).status).toBe(200);
      expect(gpuProcesses(server.proc.pid)).toEqual([stuck]);
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
