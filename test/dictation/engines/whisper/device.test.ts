import { describe, expect, test } from "bun:test";
import { formatDeviceChoice, parseDeviceChoice } from "../../../../src/dictation/engines/device-choice.ts";
import {
  chooseGpuDevice,
  describeGpuDevice,
  type GpuDevice,
} from "../../../../src/dictation/engines/whisper/device.ts";
import { loadFailure } from "../../../../src/dictation/engines/whisper/placement.ts";

const GiB = 1024 ** 3;
const vulkan = (index: number, name: string, type: GpuDevice["type"], memory: number): GpuDevice => ({
  api: "vulkan",
  index,
  name,
  type,
  memory,
});
const lavapipe = vulkan(0, "llvmpipe (LLVM 15.0.6, 256 bits)", "cpu", 8 * GiB);
const n100 = vulkan(1, "Intel(R) Graphics (ADL-N)", "integrated", 8 * GiB);
const rtx = vulkan(2, "NVIDIA GeForce RTX 3060", "discrete", 12 * GiB);
const h200: GpuDevice = { api: "cuda", index: 0, name: "NVIDIA H200", type: "discrete", memory: 140 * GiB };
const l4: GpuDevice = { api: "cuda", index: 1, name: "NVIDIA L4", type: "discrete", memory: 22 * GiB };

describe("parseDeviceChoice", () => {
  test("reads auto, cpu, vulkan, vulkan:N, cuda and cuda:N in any case", () => {
    expect(parseDeviceChoice("auto")).toEqual({ kind: "auto" });
    expect(parseDeviceChoice(" CPU ")).toEqual({ kind: "cpu" });
    expect(parseDeviceChoice("vulkan")).toEqual({ kind: "vulkan" });
    expect(parseDeviceChoice("vulkan:1")).toEqual({ kind: "vulkan", index: 1 });
    expect(parseDeviceChoice("CUDA")).toEqual({ kind: "cuda" });
    expect(parseDeviceChoice("cuda:12")).toEqual({ kind: "cuda", index: 12 });
  });

  test("refuses anything else", () => {
    for (const text of [
      "",
      "gpu",
      "cpu:1",
      "auto:0",
      "vulkan:",
      "vulkan:x",
      "cuda:-1",
      "metal",
      "cuda:123",
    ]) {
      expect(parseDeviceChoice(text)).toBeUndefined();
    }
  });

  test("spells a choice back as SVC_WHISPER_DEVICE takes it", () => {
    for (const text of ["auto", "cpu", "vulkan", "vulkan:3", "cuda", "cuda:0"]) {
      const choice = parseDeviceChoice(text);
      expect(choice && formatDeviceChoice(choice)).toBe(text);
    }
  });
});

describe("chooseGpuDevice", () => {
  test("auto takes a discrete GPU over an integrated one", () => {
    expect(chooseGpuDevice("vulkan", [lavapipe, n100, rtx], { kind: "auto" })).toEqual({ device: rtx });
  });

  test("auto takes an integrated GPU when there is no discrete one", () => {
    expect(chooseGpuDevice("vulkan", [lavapipe, n100], { kind: "auto" })).toEqual({ device: n100 });
  });

  test("auto never takes a CPU-type device such as lavapipe, and says why", () => {
    const result = chooseGpuDevice("vulkan", [lavapipe], { kind: "auto" });
    expect(result).toEqual({
      reason:
        "no discrete or integrated GPU among the Vulkan devices (llvmpipe (LLVM 15.0.6, 256 bits) (cpu))",
    });
  });

  test("auto passes over the Raspberry Pi's V3D, which a forced vulkan still takes", () => {
    const pi5 = vulkan(0, "V3D 7.1.7", "integrated", 7.9 * GiB);
    expect(chooseGpuDevice("vulkan", [pi5], { kind: "auto" })).toEqual({
      reason: expect.stringContaining(
        "Vulkan 0: V3D 7.1.7 (integrated GPU, 7.9 GiB) is the Raspberry Pi's GPU",
      ),
    });
    expect(chooseGpuDevice("vulkan", [pi5], { kind: "vulkan" })).toEqual({ device: pi5 });
    // A card beside it (a Pi 5 with a PCIe GPU) is a discrete one, and auto takes it.
    expect(chooseGpuDevice("vulkan", [pi5, rtx], { kind: "auto" })).toEqual({ device: rtx });
    // Other boards' integrated GPUs are taken, as an N100's is.
    const adreno = vulkan(0, "Turnip Adreno (TM) 740", "integrated", 8 * GiB);
    expect(chooseGpuDevice("vulkan", [adreno], { kind: "auto" })).toEqual({ device: adreno });
  });

  test("auto stays off a GPU the model does not fit, with a fifth more for work buffers", () => {
    expect(chooseGpuDevice("vulkan", [n100], { kind: "auto" }, 7.5 * GiB)).toEqual({
      reason: expect.stringContaining("does not fit Vulkan 1: Intel(R) Graphics (ADL-N)"),
    });
    expect(chooseGpuDevice("vulkan", [n100], { kind: "auto" }, 6 * GiB)).toEqual({ device: n100 });
  });

  test("a forced vulkan takes a CPU-type device when it is the only one, GPUs first otherwise", () => {
    expect(chooseGpuDevice("vulkan", [lavapipe], { kind: "vulkan" })).toEqual({ device: lavapipe });
    expect(chooseGpuDevice("vulkan", [lavapipe, n100], { kind: "vulkan" })).toEqual({ device: n100 });
  });

  test("vulkan:N takes device N, or says there is none", () => {
    expect(chooseGpuDevice("vulkan", [lavapipe, n100], { kind: "vulkan", index: 0 })).toEqual({
      device: lavapipe,
    });
    expect(chooseGpuDevice("vulkan", [lavapipe], { kind: "vulkan", index: 3 })).toEqual({
      reason: expect.stringContaining("there is no Vulkan device 3: 1 listed"),
    });
    expect(chooseGpuDevice("vulkan", [], { kind: "vulkan" })).toEqual({
      reason: "no Vulkan device is listed",
    });
  });

  test("cuda and cuda:N choose among CUDA's devices by their number", () => {
    expect(chooseGpuDevice("cuda", [h200, l4], { kind: "cuda" })).toEqual({ device: h200 });
    expect(chooseGpuDevice("cuda", [h200, l4], { kind: "cuda", index: 1 })).toEqual({ device: l4 });
    expect(chooseGpuDevice("cuda", [h200], { kind: "cuda", index: 1 })).toEqual({
      reason: expect.stringContaining("there is no CUDA device 1"),
    });
    // NVIDIA's driver library with no card (a container not given one): the same words either way.
    expect(chooseGpuDevice("cuda", [], { kind: "auto" })).toEqual({ reason: "no CUDA device is listed" });
    expect(chooseGpuDevice("cuda", [], { kind: "cuda" })).toEqual({ reason: "no CUDA device is listed" });
  });

  test("names a device with its interface, number, kind and memory", () => {
    expect(describeGpuDevice(rtx)).toBe("Vulkan 2: NVIDIA GeForce RTX 3060 (discrete GPU, 12.0 GiB)");
    expect(describeGpuDevice(lavapipe)).toBe(
      "Vulkan 0: llvmpipe (LLVM 15.0.6, 256 bits) (CPU-type device, 8.0 GiB)",
    );
    expect(describeGpuDevice(h200)).toBe("CUDA 0: NVIDIA H200 (discrete GPU, 140.0 GiB)");
  });
});

describe("why a GPU build did not load, in words a person can act on", () => {
  const said = (api: "vulkan" | "cuda", message: string) => loadFailure(api, new Error(message));
  test("names the missing build, library or glibc", () => {
    expect(said("cuda", "Cannot find module '/opt/svc/svc-cuda/cuda.node'")).toBe(
      "this svc has no CUDA build of whisper.cpp",
    );
    expect(said("vulkan", "libvulkan.so.1: cannot open shared object file: No such file or directory")).toBe(
      "the Vulkan loader (libvulkan.so.1) is not installed",
    );
    expect(said("cuda", "libcuda.so.1: cannot open shared object file")).toBe(
      "the NVIDIA driver (libcuda.so.1) is not installed",
    );
    expect(said("cuda", "libcublasLt.so.12: cannot open shared object file")).toBe(
      "the CUDA runtime libraries are missing (libcublasLt.so.12)",
    );
    expect(
      said(
        "vulkan",
        "/lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.34' not found (required by vulkan.node)",
      ),
    ).toBe("the Vulkan build of whisper.cpp needs glibc 2.34 or newer, which this system lacks");
    expect(said("vulkan", "something else\nmore")).toBe(
      "the Vulkan build of whisper.cpp could not be loaded (something else)",
    );
  });
});
