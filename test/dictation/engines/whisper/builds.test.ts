import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildsFor, chooseBuild } from "../../../../src/dictation/engines/whisper/binding.ts";
import { describeWhisperBuild } from "../../../../src/dictation/engines/whisper/placement.ts";

// What CPUID reports on these processors, in cpu-features.c's names.
const v2 = ["sse3", "ssse3", "sse4_1", "sse4_2", "popcnt", "cx16", "lahf_lm"];
const haswell = [...v2, "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "lzcnt", "movbe"];
const cpus: Record<string, { platform: string; features: string[]; build: string | undefined }> = {
  "Nehalem (2008), Atom C2000": { platform: "linux-x64", features: v2, build: "x86-64-v2" },
  // Goldmont Plus has SSE4.2 and MOVBE but no AVX: the common homelab CPUs without AVX2.
  "Celeron J4125 (Goldmont Plus)": { platform: "linux-x64", features: [...v2, "movbe"], build: "x86-64-v2" },
  "Sandy Bridge (AVX without AVX2)": { platform: "linux-x64", features: [...v2, "avx"], build: "x86-64-v2" },
  Haswell: { platform: "linux-x64", features: haswell, build: "x86-64-v3" },
  "Skylake-SP": {
    platform: "linux-x64",
    features: [...haswell, "avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"],
    build: "x86-64-v4",
  },
  // AVX-512 present in the CPU but its state not enabled by the OS: cpu-features.c reports none of it.
  "AVX-512 without OS support": { platform: "linux-x64", features: haswell, build: "x86-64-v3" },
  "Core 2 (no SSE4.2)": { platform: "linux-x64", features: ["sse3", "ssse3", "cx16"], build: undefined },
  "Raspberry Pi 4 (Cortex-A72)": { platform: "linux-arm64", features: ["asimd"], build: "armv8-a" },
  "Raspberry Pi 5 (Cortex-A76)": {
    platform: "linux-arm64",
    features: ["asimd", "fphp", "asimdhp", "asimddp"],
    build: "armv8.2-a",
  },
};

describe("choosing the whisper.cpp build for a CPU", () => {
  for (const [cpu, { platform, features, build }] of Object.entries(cpus)) {
    test(`${cpu} gets ${build ?? "none"}`, () => {
      expect(chooseBuild(buildsFor(platform), new Set(features))?.name).toBe(build);
    });
  }

  test("each platform's builds go from most to least demanding, and arm64's last needs nothing", () => {
    for (const platform of ["linux-x64", "linux-arm64"]) {
      const builds = buildsFor(platform);
      expect(builds.length).toBeGreaterThan(1);
      for (let i = 1; i < builds.length; i++) {
        const [previous, current] = [builds[i - 1], builds[i]];
        // A CPU that can run a build can run every later one: a later build never needs more.
        for (const feature of current?.needs ?? []) expect(previous?.needs).toContain(feature);
        expect(previous?.needs.length).toBeGreaterThan(current?.needs.length ?? 0);
      }
    }
    expect(buildsFor("linux-arm64").at(-1)?.needs).toEqual([]);
    expect(buildsFor("darwin-arm64")).toEqual([]);
  });
});

describe.skipIf(process.platform !== "linux" || process.arch !== "x64")("this machine's CPU", () => {
  // /proc/cpuinfo spells two features differently from CPUID's documentation.
  const cpuinfoName: Record<string, string> = { sse3: "pni", lzcnt: "abm", bmi1: "bmi1" };
  const cpuinfo = new Set(
    (/^flags\s*:(.*)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? "").trim().split(/\s+/),
  );

  test("the processor probe agrees with the kernel's flags, and the best build it allows is loaded", async () => {
    const probe = require(join(import.meta.dir, "../../../../build/whisper/linux-x64/cpu-features.node")) as {
      features(): string[];
    };
    const features = probe.features();
    expect(features).toContain("sse4_2");
    for (const feature of features) expect(cpuinfo.has(cpuinfoName[feature] ?? feature)).toBe(true);
    const expected = chooseBuild(buildsFor("linux-x64"), new Set(features));
    expect(await describeWhisperBuild()).toStartWith(`${expected?.name} (${expected?.label})`);
  });
});
