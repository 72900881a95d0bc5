// SVC_WHISPER_DEVICE's choice of where an engine that can use a GPU runs. Engine-neutral: config.ts
// parses it and the engine context carries it; only an engine with GPU builds (whisper) reads it.

/** The GPU interfaces svc has builds for: Vulkan (every vendor) and CUDA (NVIDIA). */
export type GpuApi = "vulkan" | "cuda";

/** `auto` (a GPU when one can be used, else the CPU), `cpu`, or a GPU interface and maybe its device. */
export type DeviceChoice = { kind: "auto" } | { kind: "cpu" } | { kind: GpuApi; index?: number };

/** Each interface's name for people. */
export const gpuApiName = { vulkan: "Vulkan", cuda: "CUDA" } as const satisfies Record<GpuApi, string>;

export const autoDevice: DeviceChoice = { kind: "auto" };

/** Reads `auto`, `cpu`, `vulkan`, `vulkan:N`, `cuda` or `cuda:N` (any case); undefined otherwise. */
export function parseDeviceChoice(text: string): DeviceChoice | undefined {
  const match = /^(auto|cpu|vulkan|cuda)(?::(\d{1,2}))?$/.exec(text.trim().toLowerCase());
  if (!match) return undefined;
  const kind = match[1] as DeviceChoice["kind"];
  if (match[2] === undefined) return { kind };
  return kind === "vulkan" || kind === "cuda" ? { kind, index: Number(match[2]) } : undefined;
}

/** The choice as SVC_WHISPER_DEVICE spells it. */
export const formatDeviceChoice = (choice: DeviceChoice): string =>
  "index" in choice && choice.index !== undefined ? `${choice.kind}:${choice.index}` : choice.kind;

/**
 * The hidden command main.ts answers by listing one engine's GPU devices (`__gpu-devices <engine>
 * <api>`): svc looks in a short-lived process of its own, so the server never maps a GPU build, its
 * driver loader or a driver.
 */
export const GPU_PROBE_COMMAND = "__gpu-devices";

/**
 * The hidden command that serves one engine on a GPU, apart from the server (`svc __gpu-engine
 * whisper`): the engine definition's `serveGpu`.
 */
export const GPU_ENGINE_COMMAND = "__gpu-engine";
