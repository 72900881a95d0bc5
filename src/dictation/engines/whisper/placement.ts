// Where whisper runs: a GPU build (CUDA for NVIDIA, Vulkan for every vendor) on the device
// SVC_WHISPER_DEVICE comes to, else the CPU build for this processor (binding.ts). Decided once per
// process: ggml reads its devices once.
import { fileURLToPath } from "node:url";
import {
  autoDevice,
  type DeviceChoice,
  formatDeviceChoice,
  GPU_PROBE_COMMAND,
  type GpuApi,
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

const apiName = { vulkan: "Vulkan", cuda: "CUDA" } as const;
// CUDA first: on an NVIDIA card it is the faster of the two.
const gpuApis: readonly GpuApi[] = ["cuda", "vulkan"];

const gpuAddons = new Map<GpuApi, GpuAddon | { reason: string }>();
let placed: { addon: WhisperAddon; placement: WhisperPlacement } | undefined;

/** Where whisper runs (after the first load), for the log, `/api/engines` and `svc version`. */
export function whisperPlacement(): WhisperPlacement | undefined {
  return placed?.placement;
}

/** One line for `svc version`: the build and device `choice` comes to here, or why there is none. */
export function describeWhisperBuild(choice: DeviceChoice = autoDevice): string {
  let placement: WhisperPlacement;
  try {
    placement = placeWhisper(choice).placement;
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
    return `this svc has no ${apiName[api]} build of whisper.cpp`;
  }
  const glibc = /GLIBC_([\d.]+)' not found/.exec(message)?.[1];
  if (glibc)
    return `the ${apiName[api]} build of whisper.cpp needs glibc ${glibc} or newer, which this system lacks`;
  if (/libvulkan\.so/.test(message)) return "the Vulkan loader (libvulkan.so.1) is not installed";
  if (/libcuda\.so/.test(message)) return "the NVIDIA driver (libcuda.so.1) is not installed";
  if (/libcu(blas|blasLt|dart)\.so/.test(message)) {
    return `the CUDA runtime libraries are missing (${/libcu\w+\.so[.\d]*/.exec(message)?.[0]})`;
  }
  return `the ${apiName[api]} build of whisper.cpp could not be loaded (${message.split("\n")[0]})`;
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
    .filter((device) => device.type === "gpu" || device.type === "igpu")
    .map((device, index) => ({
      api,
      index,
      name: device.description || device.name,
      type: device.type === "igpu" ? "integrated" : "discrete",
      memory: device.total,
    }));
}

/** One GPU build's devices, or why there are none: what the probe process prints. */
export function probeGpuDevices(api: GpuApi): { devices: GpuDevice[] } | { reason: string } {
  const addon = loadGpuAddon(api);
  if ("reason" in addon) return addon;
  try {
    return { devices: devicesOf(api, addon) };
  } catch (error) {
    return { reason: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * `probeGpuDevices` in a short-lived process (main.ts's GPU_PROBE_COMMAND), so that a machine with
 * no usable GPU never maps the GPU build, the Vulkan loader or a driver into the server. Once, at
 * the first model load.
 */
function probeApart(api: GpuApi): { devices: GpuDevice[] } | { reason: string } {
  const compiled = /\/\$bunfs\/|\/~BUN\//.test(import.meta.url);
  const self = compiled
    ? [process.execPath]
    : [process.execPath, fileURLToPath(new URL("../../../main.ts", import.meta.url))];
  const proc = Bun.spawnSync([...self, GPU_PROBE_COMMAND, "whisper", api], {
    env: process.env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const last = proc.stdout.toString().trim().split("\n").at(-1) ?? "";
  try {
    return JSON.parse(last) as { devices: GpuDevice[] } | { reason: string };
  } catch {
    const said = proc.stderr.toString().trim().split("\n").at(-1) ?? "";
    return {
      reason: `listing its devices failed (exit ${proc.exitCode}${said ? `: ${said.slice(0, 200)}` : ""})`,
    };
  }
}

function gpuFor(api: GpuApi, choice: DeviceChoice, modelBytes: number) {
  // `auto` looks apart and loads a GPU build here only for a device it will use; a forced interface
  // is going to be used, so it looks here.
  const listed = choice.kind === "auto" ? probeApart(api) : probeGpuDevices(api);
  if ("reason" in listed) return listed;
  const chosen = chooseGpuDevice(api, listed.devices, choice, modelBytes);
  if ("reason" in chosen) return chosen;
  const addon = loadGpuAddon(api);
  return "reason" in addon ? addon : { addon, device: chosen.device };
}

/** Hands the device to ggml, before the first load. */
function use(addon: GpuAddon, device: GpuDevice): void {
  if (device.api === "vulkan" && addon.useVulkanDevice) {
    // ggml sees this one device only (a CPU-type one included, which it would hide), as its GPU 0.
    addon.useVulkanDevice(device.index, device.type === "cpu");
    addon.useGgmlGpu(0);
  } else {
    addon.useGgmlGpu(device.index);
  }
}

/**
 * Where whisper runs, decided once per process (ggml reads its devices once): a GPU build on the
 * device `choice` comes to, else the CPU build. A forced `vulkan` or `cuda` that cannot be had throws
 * `engine_unavailable` with the reason; `auto` tries CUDA, then Vulkan, then falls back to the CPU
 * and says why in `fallback`.
 */
export function placeWhisper(
  choice: DeviceChoice,
  modelBytes = 0,
): { addon: WhisperAddon; placement: WhisperPlacement } {
  if (placed) return placed;
  if (choice.kind === "cpu") {
    placed = { addon: loadWhisperAddon(), placement: { build: pick() } };
    return placed;
  }
  const cpu = pick();
  const reasons: string[] = [];
  for (const api of choice.kind === "auto" ? gpuApis : [choice.kind]) {
    const gpu = gpuFor(api, choice, modelBytes);
    if ("reason" in gpu) {
      reasons.push(choice.kind === "auto" ? `${apiName[api]}: ${gpu.reason}` : gpu.reason);
      continue;
    }
    use(gpu.addon, gpu.device);
    const build = {
      name: api,
      label: `${apiName[api]}, CPU part ${buildsFor(runtimePlatform).at(-1)?.name}`,
      needs: [],
    };
    placed = { addon: gpu.addon, placement: { build, device: gpu.device } };
    return placed;
  }
  if (choice.kind !== "auto") {
    throw unavailable(
      new Error(
        `${apiName[choice.kind]} (SVC_WHISPER_DEVICE=${formatDeviceChoice(choice)}) cannot be used: ${reasons.join("; ")}`,
      ),
    );
  }
  placed = { addon: loadWhisperAddon(), placement: { build: cpu, fallback: reasons.join("; ") } };
  return placed;
}

/** The GPU ggml runs on after a load through a GPU build, if it runs on one. */
export function ggmlGpu(addon: WhisperAddon): GgmlDevice | undefined {
  if (!("ggmlDevices" in addon)) return undefined;
  return (addon as GpuAddon).ggmlDevices().find((device) => device.type === "gpu" || device.type === "igpu");
}
