// Where whisper runs: a GPU build (CUDA for NVIDIA, Vulkan for every vendor) on the device
// SVC_WHISPER_DEVICE comes to, in whisper's GPU process, else the CPU build for this processor
// (binding.ts) in the server. Decided once per process: ggml reads its devices once.
import { selfCommand } from "../../../self-command.ts";
import {
  autoDevice,
  type DeviceChoice,
  formatDeviceChoice,
  GPU_PROBE_COMMAND,
  type GpuApi,
  gpuApiName,
} from "../device-choice.ts";
import {
  buildsFor,
  externalBuild,
  loadWhisperAddon,
  pick,
  requireQuiet,
  runtimePlatform,
  unavailable,
  type WhisperAddon,
  type WhisperBuild,
} from "./binding.ts";
import { chooseGpuDevice, describeGpuDevice, type GpuDevice } from "./device.ts";

/** A device ggml itself runs on (native/gpu-devices.cc). */
export interface GgmlDevice {
  name: string;
  description: string;
  type: "gpu" | "igpu" | "cpu" | "accel";
  free: number;
  total: number;
}

/** A GPU build's own functions beside the binding's (scripts/whisper-gpu.mjs, native/gpu-devices.cc). */
interface GpuAddon extends WhisperAddon {
  /** The Vulkan build only: every Vulkan device, CPU-type ones too (ggml hides those). */
  vulkanDevices?(): Omit<GpuDevice, "api">[];
  /**
   * The Vulkan build only: the one device ggml may see (before the first load). A CPU-type device
   * gets ggml's fused shaders and async transfers turned off: Debian 12's lavapipe crashes in them.
   */
  useVulkanDevice?(index: number, cpuType: boolean): void;
  /** Which of ggml's GPUs a model loads on: whisper.cpp's `gpu_device`. */
  useGgmlGpu(index: number): void;
  ggmlDevices(): GgmlDevice[];
}

/** Where whisper runs: the build, its GPU device, and why not a GPU where `auto` stayed on the CPU. */
export interface WhisperPlacement {
  build: WhisperBuild;
  device?: GpuDevice;
  fallback?: string;
}

// CUDA first: on an NVIDIA card it is the faster of the two.
const gpuApis: readonly GpuApi[] = ["cuda", "vulkan"];

/** The CPU build comes loaded; a GPU placement leaves the loading to whisper's GPU process. */
type Placed = { addon?: WhisperAddon; placement: WhisperPlacement };
type Listed = { devices: GpuDevice[] } | { reason: string };

const gpuAddons = new Map<GpuApi, GpuAddon | { reason: string }>();
let placing: Promise<Placed> | undefined;
let placed: Placed | undefined;

const isGgmlGpu = (device: GgmlDevice) => device.type === "gpu" || device.type === "igpu";

/** Where whisper runs (after the first load), for the log, `/api/engines` and `svc version`. */
export function whisperPlacement(): WhisperPlacement | undefined {
  return placed?.placement;
}

/** One line for `svc version`: the build and device `choice` comes to here, or why there is none. */
export async function describeWhisperBuild(choice: DeviceChoice = autoDevice): Promise<string> {
  let placement: WhisperPlacement;
  try {
    placement = (await placeWhisper(choice)).placement;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  const { build, device, fallback } = placement;
  if (device) return `${build.name} (${build.label}) on ${describeGpuDevice(device)}`;
  const count = buildsFor(runtimePlatform).length;
  const text = `${build.name} (${build.label})${count > 1 ? `, the best of ${count} builds for this CPU` : ""}`;
  return fallback ? `${text}; no GPU: ${fallback}` : text;
}

/** Why a GPU build could not load, in words a person can act on, from the loader's message. */
export function loadFailure(api: GpuApi, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (
    /ENOENT|no such file|Cannot find module|has no whisper\.cpp build/i.test(message) &&
    /\.node/.test(message)
  ) {
    return `this svc has no ${gpuApiName[api]} build of whisper.cpp`;
  }
  const glibc = /GLIBC_([\d.]+)' not found/.exec(message)?.[1];
  if (glibc)
    return `the ${gpuApiName[api]} build of whisper.cpp needs glibc ${glibc} or newer, which this system lacks`;
  if (/libvulkan\.so/.test(message)) return "the Vulkan loader (libvulkan.so.1) is not installed";
  if (/libcuda\.so/.test(message)) return "the NVIDIA driver (libcuda.so.1) is not installed";
  if (/libcu(blas|blasLt|dart)\.so/.test(message)) {
    return `the CUDA runtime libraries are missing (${/libcu\w+\.so[.\d]*/.exec(message)?.[0]})`;
  }
  return `the ${gpuApiName[api]} build of whisper.cpp could not be loaded (${message.split("\n")[0]})`;
}

/** A GPU build (`vulkan.node` beside the CPU levels; `cuda.node`, a separate download), or why not. */
function loadGpuAddon(api: GpuApi): GpuAddon | { reason: string } {
  let loaded = gpuAddons.get(api);
  if (!loaded) {
    try {
      loaded = requireQuiet(api === "cuda" ? externalBuild("cuda") : api) as GpuAddon;
    } catch (error) {
      loaded = { reason: loadFailure(api, error) };
    }
    gpuAddons.set(api, loaded);
  }
  return loaded;
}

/** One GPU build's devices, numbered as SVC_WHISPER_DEVICE numbers them. */
function devicesOf(api: GpuApi, addon: GpuAddon): GpuDevice[] {
  if (api === "vulkan" && addon.vulkanDevices) {
    return addon.vulkanDevices().map((device) => ({ ...device, api }));
  }
  return addon
    .ggmlDevices()
    .filter(isGgmlGpu)
    .map((device, index) => ({
      api,
      index,
      name: device.description || device.name,
      type: device.type === "igpu" ? "integrated" : "discrete",
      memory: device.total,
    }));
}

/** One GPU build's devices, or why there are none: what the probe process prints. */
export function probeGpuDevices(api: GpuApi): Listed {
  const addon = loadGpuAddon(api);
  if ("reason" in addon) return addon;
  try {
    return { devices: devicesOf(api, addon) };
  } catch (error) {
    return { reason: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * `probeGpuDevices` in a short-lived process (main.ts's GPU_PROBE_COMMAND), so that the server
 * never maps the GPU build, the Vulkan loader or a driver. Once, at the first model load, without
 * holding the event loop (a probe takes a quarter of a second or more).
 */
async function probeApart(api: GpuApi): Promise<Listed> {
  const proc = Bun.spawn(selfCommand(GPU_PROBE_COMMAND, "whisper", api), {
    env: process.env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  try {
    return JSON.parse(out.trim().split("\n").at(-1) ?? "") as Listed;
  } catch {
    const said = err.trim().split("\n").at(-1) ?? "";
    return { reason: `listing its devices failed (exit ${code}${said ? `: ${said.slice(0, 200)}` : ""})` };
  }
}

/** A GPU device `choice` comes to through `api`'s build, or why not: looked for apart, always. */
async function gpuFor(api: GpuApi, choice: DeviceChoice, modelBytes: number) {
  const listed = await probeApart(api);
  if ("reason" in listed) return listed;
  return chooseGpuDevice(api, listed.devices, choice, modelBytes);
}

/**
 * The GPU build for `device`, loaded in this process and handed the device: what whisper's GPU
 * process (gpu-process.ts) runs on. Throws engine_unavailable when the build cannot load here.
 */
export function openGpuBuild(device: GpuDevice): WhisperAddon {
  const addon = loadGpuAddon(device.api);
  if ("reason" in addon) throw unavailable(new Error(addon.reason));
  if (device.api === "vulkan" && addon.useVulkanDevice) {
    // ggml sees this one device only (a CPU-type one included, which it would hide), as its GPU 0.
    addon.useVulkanDevice(device.index, device.type === "cpu");
    addon.useGgmlGpu(0);
  } else {
    addon.useGgmlGpu(device.index);
  }
  return addon;
}

/**
 * Where whisper runs, decided once per process (loads that ask at the same time share one
 * decision): a GPU build on the device `choice` comes to, else the CPU build, loaded here. A GPU
 * build is never loaded in this process: the devices are listed in a short-lived one, and the
 * model runs in a process of its own (gpu-engine.ts). A forced `vulkan` or `cuda` that cannot be
 * had rejects with `engine_unavailable` and the reason (and the next load asks again); `auto` tries
 * CUDA, then Vulkan, then falls back to the CPU and says why in `fallback`.
 */
export function placeWhisper(choice: DeviceChoice, modelBytes = 0): Promise<Placed> {
  placing ??= place(choice, modelBytes).then(
    (done) => {
      placed = done;
      return done;
    },
    (error) => {
      placing = undefined;
      throw error;
    },
  );
  return placing;
}

async function place(choice: DeviceChoice, modelBytes: number): Promise<Placed> {
  if (choice.kind === "cpu") return { addon: loadWhisperAddon(), placement: { build: pick() } };
  const reasons: string[] = [];
  for (const api of choice.kind === "auto" ? gpuApis : [choice.kind]) {
    const gpu = await gpuFor(api, choice, modelBytes);
    if ("reason" in gpu) {
      reasons.push(choice.kind === "auto" ? `${gpuApiName[api]}: ${gpu.reason}` : gpu.reason);
      continue;
    }
    const build = {
      name: api,
      label: `${gpuApiName[api]}, CPU part ${buildsFor(runtimePlatform).at(-1)?.name}`,
      needs: [],
    };
    return { placement: { build, device: gpu.device } };
  }
  if (choice.kind !== "auto") {
    throw unavailable(
      new Error(
        `${gpuApiName[choice.kind]} (SVC_WHISPER_DEVICE=${formatDeviceChoice(choice)}) cannot be used: ${reasons.join("; ")}`,
      ),
    );
  }
  return { addon: loadWhisperAddon(), placement: { build: pick(), fallback: reasons.join("; ") } };
}

/** The GPU ggml runs on after a load through a GPU build, if it runs on one. */
export function ggmlGpu(addon: WhisperAddon): GgmlDevice | undefined {
  if (!("ggmlDevices" in addon)) return undefined;
  return (addon as GpuAddon).ggmlDevices().find(isGgmlGpu);
}
