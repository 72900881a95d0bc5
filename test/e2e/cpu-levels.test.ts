import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { compileArgs, prepareNative } from "../../scripts/compile.ts";
import { dictateWithWhisper } from "../helpers/binary.ts";

// The compiled binary on other processors, under qemu-user: an x86-64 CPU without AVX (as the Atom,
// Celeron and Pentium Silver chips in many NAS boxes), a Haswell for contrast, and arm64 (a Raspberry
// Pi 4 and a newer core). Each must start, log the whisper.cpp build it chose, and transcribe.
const repo = resolve(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "svc-cpus-"));
const ARM64_SYSROOT = "/usr/aarch64-linux-gnu"; // Debian's libc6-arm64-cross: the arm64 loader and libc
let arm64Binary: string;

beforeAll(async () => {
  // The linux-arm64 binary, its whisper.cpp cross-compiled with Debian's aarch64 toolchain.
  await prepareNative("linux-arm64");
  arm64Binary = join(dir, "svc-arm64");
  const build = Bun.spawnSync([process.execPath, ...compileArgs("linux-arm64", arm64Binary)], {
    cwd: repo,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (build.exitCode !== 0) throw new Error(`arm64 build failed: ${build.stderr}`);
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Transcribes with whisper on that CPU; returns the build the server said it chose. */
async function dictateUnder(emulator: string[], binary?: string) {
  const { status, body, build } = await dictateWithWhisper({ emulator, binary, dir });
  expect(status).toBe(200);
  expect(body).toMatchObject({ engine: "whisper", model: "micro" });
  expect(body.audioDurationMs).toBeGreaterThan(2500);
  return build;
}

describe("the linux-x64 binary on older and newer x86-64 CPUs", () => {
  test("Nehalem (SSE4.2, no AVX) takes the x86-64-v2 build and transcribes", async () => {
    expect(await dictateUnder(["qemu-x86_64-static", "-cpu", "Nehalem"])).toBe("x86-64-v2 (SSE4.2)");
  }, 120_000);

  test("Haswell takes the AVX2 build", async () => {
    expect(await dictateUnder(["qemu-x86_64-static", "-cpu", "Haswell"])).toBe("x86-64-v3 (AVX2)");
  }, 120_000);
});

describe("the linux-arm64 binary", () => {
  const qemu = (cpu: string) => ["qemu-aarch64-static", "-L", ARM64_SYSROOT, "-cpu", cpu];

  test("a Cortex-A72 (Raspberry Pi 4) takes the plain NEON build and transcribes with whisper", async () => {
    expect(await dictateUnder(qemu("cortex-a72"), arm64Binary)).toBe("armv8-a (NEON, any arm64)");
  }, 180_000);

  test("a core with FP16 and dot product takes the armv8.2-a build", async () => {
    expect(await dictateUnder(qemu("max"), arm64Binary)).toBe("armv8.2-a (NEON with FP16 and dot product)");
  }, 180_000);
});
