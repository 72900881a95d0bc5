// How svc becomes one executable: the `bun build --compile` arguments for a platform, shared by
// `bun run build`, the release and the tests that compile svc, so all three make the same binary.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DECODE_WORKER_ENTRY } from "../src/dictation/audio/index.ts";
import { workerEntries } from "../src/dictation/engines/registry.ts";
import { buildWhisperAddons } from "./whisper-addon.mjs";

// x86-64 takes Bun's baseline runtime: the default one may use AVX2, which many homelab CPUs lack.
export const platforms = {
  "linux-x64": "bun-linux-x64-baseline",
  "linux-arm64": "bun-linux-arm64",
  "darwin-arm64": "bun-darwin-arm64",
  "windows-x64": "bun-windows-x64-baseline",
} as const;
export type Platform = keyof typeof platforms;

export const isPlatform = (name: string): name is Platform => name in platforms;

/** How much more reluctant the JIT is while svc starts (Bun.unsafe.setJITPolicy). */
const startJitPolicy = 10;

// Optional codecs that audio-decode imports only when present.
const externals = ["@audio/decode-ape"];

/** The commit a binary reports in `svc version`: SVC_COMMIT (the image's build argument), else git's. */
export function commitId(): string {
  if (process.env.SVC_COMMIT) return process.env.SVC_COMMIT;
  const head = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { stderr: "ignore" });
  if (head.exitCode !== 0) return "unknown";
  const dirty = Bun.spawnSync(["git", "status", "--porcelain", "--untracked-files=no"], { stderr: "ignore" });
  return `${head.stdout.toString().trim()}${dirty.stdout.toString().trim() ? "-dirty" : ""}`;
}

/** Linux binaries embed whisper.cpp, every CPU level of their platform: built here when missing. */
export async function prepareNative(platform: Platform): Promise<void> {
  if (platform.startsWith("linux-")) await buildWhisperAddons({ platform });
}

/** `bun build` arguments that compile `entry` (svc's main, or a test's) for `platform` into `outfile`. */
export function compileArgs(platform: Platform, outfile: string, entry = "src/main.ts"): string[] {
  return [
    "build",
    entry,
    // Workers (sphinx's engine, the compressed-audio decoder): their entries are compiled in at
    // known paths (--root .).
    ...workerEntries,
    DECODE_WORKER_ENTRY,
    "--root",
    ".",
    "--compile",
    `--target=${platforms[platform]}`,
    // Which whisper.cpp builds the binary embeds (src/dictation/engines/whisper/binding.ts).
    `--define=SVC_ADDON_PLATFORM=${JSON.stringify(platform)}`,
    // The Vulkan build is optional (it needs glslc and the Vulkan headers): embedded where it was made.
    `--define=SVC_ADDON_VULKAN=${existsSync(join(import.meta.dir, `../build/whisper/${platform}/vulkan.node`))}`,
    `--define=SVC_COMMIT=${JSON.stringify(commitId())}`,
    "--minify-syntax",
    "--minify-whitespace",
    // Lazily imported modules (the compressed-audio codecs: about 9 MB of inlined WASM) become
    // chunks that are read only when first used, instead of pages every process touches at start.
    "--splitting",
    // The start runs much code once (thousands of valibot schemas, the migrations): at the normal
    // policy the JIT compiles some of it, which costs megabytes of memory for code that never runs
    // again. The binary starts reluctant; main.ts restores the normal policy once svc is up, and
    // for the commands that do heavy work in JavaScript.
    `--compile-jit-policy=${startJitPolicy}`,
    // A binary must behave the same wherever it is started: no .env or bunfig.toml from the cwd.
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    ...externals.map((name) => `--external=${name}`),
    `--outfile=${outfile}`,
  ];
}
