import { dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AppError } from "../../../errors.ts";
import variants from "./native/variants.json" with { type: "json" };

/** The model object smart-whisper's addon hands back from `WhisperModel.load`. */
export interface NativeWhisperModel {
  readonly handle: unknown;
  readonly freed: boolean;
  free(): Promise<void>;
}

/** The part of smart-whisper's native addon svc uses (its JS wrapper is bypassed, see below). */
export interface WhisperAddon {
  WhisperModel: { load(file: string, gpu: boolean): Promise<NativeWhisperModel> };
  transcribe(
    handle: unknown,
    pcm: Float32Array,
    params: Record<string, unknown>,
    finish: (result: unknown) => void,
    progress: (segment: unknown) => void,
  ): void;
}

/** One whisper.cpp build: the CPU features it was compiled for (variants.json). */
export interface WhisperBuild {
  name: string;
  label: string;
  needs: readonly string[];
}

/** The builds svc makes for a platform, best first. */
export function buildsFor(platform: string): readonly WhisperBuild[] {
  return (variants as unknown as Record<string, WhisperBuild[] | undefined>)[platform] ?? [];
}

/** The best build this CPU can run: the first whose every feature it has. */
export function chooseBuild(
  builds: readonly WhisperBuild[],
  features: ReadonlySet<string>,
): WhisperBuild | undefined {
  return builds.find((build) => build.needs.every((feature) => features.has(feature)));
}

/**
 * Set by scripts/build.ts (`--define`) in a compiled binary: the platform whose builds it embeds.
 * Absent when svc runs from source, where the builds are read from build/whisper/ in the checkout.
 */
declare const SVC_ADDON_PLATFORM: string;
/** Set beside it: whether the build machine made the Vulkan build (scripts/whisper-gpu.mjs), so it is embedded. */
declare const SVC_ADDON_VULKAN: boolean;

export const runtimePlatform = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;

/**
 * The embedded files of a compiled binary. Each path is a literal so `bun build --compile` embeds it;
 * the define makes every other platform's branch dead, so a build embeds only its own platform's files.
 */
function embedded(name: string): unknown {
  if (SVC_ADDON_PLATFORM === "linux-x64") {
    switch (name) {
      case "cpu-features":
        return require("../../../../build/whisper/linux-x64/cpu-features.node");
      case "x86-64-v4":
        return require("../../../../build/whisper/linux-x64/x86-64-v4.node");
      case "x86-64-v3":
        return require("../../../../build/whisper/linux-x64/x86-64-v3.node");
      case "x86-64-v2":
        return require("../../../../build/whisper/linux-x64/x86-64-v2.node");
      case "vulkan":
        if (SVC_ADDON_VULKAN) return require("../../../../build/whisper/linux-x64/vulkan.node");
    }
  }
  if (SVC_ADDON_PLATFORM === "linux-arm64") {
    switch (name) {
      case "cpu-features":
        return require("../../../../build/whisper/linux-arm64/cpu-features.node");
      case "armv8.2-a":
        return require("../../../../build/whisper/linux-arm64/armv8.2-a.node");
      case "armv8-a":
        return require("../../../../build/whisper/linux-arm64/armv8-a.node");
      case "vulkan":
        if (SVC_ADDON_VULKAN) return require("../../../../build/whisper/linux-arm64/vulkan.node");
    }
  }
  throw new Error(`this svc binary for ${SVC_ADDON_PLATFORM} has no whisper.cpp build`);
}

const compiled = typeof SVC_ADDON_PLATFORM !== "undefined";

/** Requires one of this platform's files: embedded in a binary, from build/whisper/ from source. */
/** The folder of the builds when svc runs from source. */
const sourceBuilds = () =>
  fileURLToPath(new URL(`../../../../build/whisper/${runtimePlatform}/`, import.meta.url));

/**
 * Where a build svc never embeds lives (CUDA's, too large and a separate download): in `svc-<name>/`
 * beside a compiled binary, in build/whisper/<platform>/ from source.
 */
export function externalBuild(name: string): string {
  if (typeof SVC_ADDON_PLATFORM !== "undefined") {
    return join(dirname(process.execPath), `svc-${name}`, `${name}.node`);
  }
  return join(sourceBuilds(), `${name}.node`);
}

/** A build by name (embedded, or from build/whisper/), or by its path (`externalBuild`). */
function requireNative(name: string): unknown {
  if (isAbsolute(name)) return require(name);
  if (typeof SVC_ADDON_PLATFORM !== "undefined") {
    if (SVC_ADDON_PLATFORM !== runtimePlatform) {
      throw new Error(`this svc binary is for ${SVC_ADDON_PLATFORM}, not ${runtimePlatform}`);
    }
    return embedded(name);
  }
  return require(join(sourceBuilds(), `${name}.node`));
}

/** The features the processor reports (native/cpu-features.c), never /proc/cpuinfo. */
function cpuFeatures(): Set<string> {
  const probe = requireNative("cpu-features") as { features(): string[] };
  return new Set(probe.features());
}

/** What a person holding this copy of svc can do about a load failure, from the loader's message. */
function hintFor(reason: string): string {
  const glibc = /GLIBC_([\d.]+)' not found/.exec(reason)?.[1];
  if (glibc) {
    return `This whisper.cpp build needs glibc ${glibc} or newer, which this system lacks. Use svc's release download (glibc 2.31: Debian 11, Ubuntu 20.04 and newer) or its container image, or the sphinx or remote engine.`;
  }
  if (/^CUDA/.test(reason)) {
    return "The CUDA build needs NVIDIA's driver (libcuda.so.1) and svc's CUDA download unpacked beside the svc binary (svc-cuda/), or from source `npm install` on a machine with a CUDA toolkit; in a container, pass the card in (--gpus all with the NVIDIA container toolkit). Or set SVC_WHISPER_DEVICE=auto (a GPU when one can be used, else the CPU), vulkan or cpu.";
  }
  if (/^Vulkan/.test(reason)) {
    return "The Vulkan build needs the Vulkan loader (libvulkan1) and the graphics card's Vulkan driver (Mesa's mesa-vulkan-drivers, or NVIDIA's driver); in a container, pass the card in (--device /dev/dri; NVIDIA: --gpus all). Or set SVC_WHISPER_DEVICE=auto (a GPU when one can be used, else the CPU) or cpu.";
  }
  if (/no whisper\.cpp build/.test(reason)) {
    return "Use the remote engine (stt_engine=remote), or sphinx on Linux.";
  }
  if (compiled) {
    // Bun unpacks an embedded library into the temporary folder before loading it.
    return "svc unpacks the whisper.cpp library into the temporary folder: TMPDIR (or /tmp) must exist, be writable and allow executables (not mounted noexec; in a container: --tmpfs /tmp:exec).";
  }
  return "From source: run `npm install` (or `npm run postinstall`) in the svc checkout: it builds whisper.cpp with g++ into build/whisper/.";
}

let cpuAddon: WhisperAddon | undefined;
let cpuError: unknown;
let picked: WhisperBuild | undefined;

/** The CPU build for the best level this processor supports, from the small CPU probe alone. */
export function pick(): WhisperBuild {
  if (picked) return picked;
  const builds = buildsFor(runtimePlatform);
  // macOS and Windows from source: smart-whisper's own build for the machine (scripts/whisper-addon.mjs).
  if (builds.length === 0) {
    picked = { name: "native", label: "built for this machine", needs: [] };
    return picked;
  }
  const features = cpuFeatures();
  const build = chooseBuild(builds, features);
  if (!build) {
    const needs = builds.at(-1)?.needs.filter((feature) => !features.has(feature)) ?? [];
    throw new Error(`no whisper.cpp build svc carries runs on this CPU, which lacks ${needs.join(", ")}`);
  }
  picked = build;
  return build;
}

export function unavailable(error: unknown): AppError {
  const reason = error instanceof Error ? error.message : String(error);
  return new AppError("engine_unavailable", `The whisper engine is not available: ${reason}`, {
    details: { engine: "whisper", hint: hintFor(reason) },
    cause: error,
  });
}

/**
 * What svc checks at start, without loading whisper.cpp (megabytes that wait for the first
 * dictation): that this processor has a build, and that the probe itself can be unpacked and run.
 * Throws loadWhisperAddon's error when not.
 */
export function assertWhisperBuild(): void {
  try {
    pick();
  } catch (error) {
    throw unavailable(error);
  }
}

/**
 * Requires a build with NODE_ENV "production": whisper.cpp logs to stderr unless it is set when the
 * addon initialises, and the server's log is JSON lines.
 */
export function requireQuiet(name: string): unknown {
  // Through a variable: `bun build` replaces a literal `process.env.NODE_ENV` read with a
  // constant ("development"), which would leave NODE_ENV set to that after the load.
  const env = process.env;
  const nodeEnv = env.NODE_ENV;
  env.NODE_ENV = "production";
  try {
    return requireNative(name);
  } finally {
    if (nodeEnv === undefined) delete env.NODE_ENV;
    else env.NODE_ENV = nodeEnv;
  }
}

/** Loads the CPU build once: the one for the best CPU level this processor supports. */
export function loadWhisperAddon(): WhisperAddon {
  if (cpuAddon) return cpuAddon;
  if (cpuError === undefined) {
    try {
      cpuAddon = requireQuiet(pick().name) as WhisperAddon;
      return cpuAddon;
    } catch (error) {
      cpuError = error;
    }
  }
  throw unavailable(cpuError);
}
