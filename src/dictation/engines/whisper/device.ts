// Where whisper runs: the GPU device SVC_WHISPER_DEVICE comes to on this machine. Pure: the GPU
// builds' device lists go in, a device or the reason for none comes out.
import { type DeviceChoice, type GpuApi, gpuApiName } from "../device-choice.ts";

/** One GPU device as a GPU build reports it (native/gpu-devices.cc). */
export interface GpuDevice {
  api: GpuApi;
  /** Its number for SVC_WHISPER_DEVICE: the Vulkan loader's order (vulkaninfo's GPU number), or CUDA's. */
  index: number;
  name: string;
  type: "discrete" | "integrated" | "virtual" | "cpu" | "other";
  /** Bytes of device memory (shared system memory on an integrated GPU). */
  memory: number;
}

const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;

/** "Vulkan 0: NVIDIA GeForce RTX 3060 (discrete GPU, 12.0 GiB)", for the log and `svc version`. */
export const describeGpuDevice = (device: GpuDevice): string =>
  `${gpuApiName[device.api]} ${device.index}: ${device.name} (${device.type === "cpu" ? "CPU-type device" : `${device.type} GPU`}, ${gib(device.memory)})`;

const isGpu = (device: GpuDevice) => device.type === "discrete" || device.type === "integrated";

/**
 * A GPU `auto` passes over: the Raspberry Pi's V3D (Pi 4 and 5, through Mesa's v3dv), a display GPU
 * whose compute is rated below its own four CPU cores'. A forced `vulkan` takes it.
 */
const ratedBelowItsCpu = (device: GpuDevice) => /^V3D\b/.test(device.name);

/**
 * The device `choice` comes to among one GPU build's `devices`, or why none. `auto` takes a
 * discrete GPU, else an integrated one, and only where the model fits its memory: never a CPU-type
 * device such as Mesa's lavapipe, which is slower than the CPU build, nor the Raspberry Pi's GPU. A
 * forced API takes any of its devices, GPUs first; `:N` takes device N.
 */
export function chooseGpuDevice(
  api: GpuApi,
  devices: readonly GpuDevice[],
  choice: DeviceChoice,
  modelBytes = 0,
): { device: GpuDevice } | { reason: string } {
  const listed = devices.map((device) => `${device.name} (${device.type})`).join(", ");
  const index = "index" in choice ? choice.index : undefined;
  if (choice.kind === api && index !== undefined) {
    const device = devices.find((candidate) => candidate.index === index);
    if (device) return { device };
    return {
      reason: `there is no ${gpuApiName[api]} device ${index}: ${devices.length} listed (${listed || "none"})`,
    };
  }
  const gpu = devices.find((device) => device.type === "discrete") ?? devices.find(isGpu);
  // With the build loaded and none listed (a driver without a card, as in a container given none).
  if (devices.length === 0) return { reason: `no ${gpuApiName[api]} device is listed` };
  if (choice.kind === api) return { device: gpu ?? (devices[0] as GpuDevice) };
  if (!gpu) {
    return {
      reason: `no discrete or integrated GPU among the ${gpuApiName[api]} devices (${listed})`,
    };
  }
  if (ratedBelowItsCpu(gpu)) {
    return {
      reason: `${describeGpuDevice(gpu)} is the Raspberry Pi's GPU, whose compute is rated below its CPU's (SVC_WHISPER_DEVICE=${api} takes it anyway)`,
    };
  }
  // The weights and about a fifth more for the work buffers; a tighter fit fails at load.
  if (modelBytes * 1.2 > gpu.memory) {
    return { reason: `the model (${gib(modelBytes)}) does not fit ${describeGpuDevice(gpu)}` };
  }
  return { device: gpu };
}
