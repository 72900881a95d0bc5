// Builds smart-whisper's native addon (whisper.cpp) once, with the SIMD flags this CPU supports.
// package.json denies smart-whisper's own install script (allowScripts): it compiles without SIMD,
// which the speech notes measured 11x slower, and letting it run would mean compiling twice.
// Runs under plain node: npm runs it before anything else of ours is usable.
//
// Overrides: SVC_WHISPER_CFLAGS="<flags>" replaces the detected SIMD flags ("" = portable baseline build,
// e.g. for an image built on one CPU and run on another); SVC_WHISPER_REBUILD=1 forces a rebuild.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const AVX2_FLAGS = "-mavx2 -mfma -mf16c";

function packageDir() {
  try {
    return path.dirname(require.resolve("smart-whisper/package.json"));
  } catch {
    return null;
  }
}

/** x86-64 needs explicit flags (gyp builds for baseline SSE2); arm64 gets NEON by default. */
function detectCflags() {
  if (process.env.SVC_WHISPER_CFLAGS !== undefined) return process.env.SVC_WHISPER_CFLAGS.trim();
  if (process.arch !== "x64") return "";
  if (process.platform !== "linux") return "";
  const info = readFileSync("/proc/cpuinfo", "utf8");
  const flags = new Set((info.match(/^flags\s*:(.*)$/m)?.[1] ?? "").trim().split(/\s+/));
  if (["avx2", "fma", "f16c"].every((flag) => flags.has(flag))) return AVX2_FLAGS;
  console.warn("svc: this CPU lacks AVX2/FMA/F16C; building whisper.cpp without SIMD (much slower).");
  return "";
}

/** npm hands scripts its bundled node-gyp; outside npm, find the one that ships beside node. */
function nodeGypPath() {
  const fromNpm = process.env.npm_config_node_gyp;
  if (fromNpm && existsSync(fromNpm)) return fromNpm;
  const prefix = path.resolve(path.dirname(process.execPath), "..");
  const beside = path.join(prefix, "lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js");
  if (existsSync(beside)) return beside;
  throw new Error("node-gyp not found: run this through `npm run postinstall` or `npm install`.");
}

/** Build against node's own headers when they are installed, so node-gyp never downloads them. */
function nodedirArgs() {
  if (process.env.npm_config_nodedir) return [];
  const prefix = path.resolve(path.dirname(process.execPath), "..");
  return existsSync(path.join(prefix, "include/node/node_api.h")) ? [`--nodedir=${prefix}`] : [];
}

function main() {
  const dir = packageDir();
  if (!dir) return; // installed without the whisper engine (e.g. a trimmed production install)
  // NDEBUG: without it ggml prints allocator debug lines to stderr on every transcription.
  const cflags = `${detectCflags()} -DNDEBUG`.trim();
  const addon = path.join(dir, "build/Release/smart-whisper.node");
  const stampPath = path.join(dir, "build/svc-build.json");
  const stamp = JSON.stringify({ cflags });
  const upToDate = existsSync(addon) && existsSync(stampPath) && readFileSync(stampPath, "utf8") === stamp;
  if (upToDate && process.env.SVC_WHISPER_REBUILD !== "1") return;

  console.log(`svc: building whisper.cpp (smart-whisper) with CFLAGS="${cflags}"; this takes ~30-60 s`);
  const started = Date.now();
  const env = { ...process.env, CFLAGS: cflags, CXXFLAGS: cflags };
  // smart-whisper links OpenBLAS whenever ldconfig lists it; pin the plain CPU backend on Linux so the
  // addon's dependencies do not depend on what happens to be installed on the build machine.
  if (process.platform === "linux" && !env.BYOL) env.COMPUTE_BACKEND ??= "cpu";
  const args = [nodeGypPath(), "rebuild", "--jobs=max", ...nodedirArgs()];
  // Compiler warnings from vendored whisper.cpp are noise; show the log only when the build fails.
  const result = spawnSync(process.execPath, args, { cwd: dir, env, encoding: "utf8", maxBuffer: 64 << 20 });
  if (result.status !== 0 || !existsSync(addon)) {
    console.error(`${result.stdout ?? ""}${result.stderr ?? ""}`.slice(-8000));
    console.error("svc: building smart-whisper failed (needs python3, make and a C++ compiler).");
    process.exit(1);
  }
  writeFileSync(stampPath, stamp);
  console.log(
    `svc: built ${path.relative(process.cwd(), addon)} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}

/** Bundles the web console with the Bun that npm just installed (src/web/dist, ~150 ms). */
function buildConsole() {
  const bun = path.join(process.cwd(), "node_modules/.bin/bun");
  if (!existsSync(bun) || !existsSync("scripts/build-console.ts")) return; // an install from a packed tarball
  const result = spawnSync(bun, ["scripts/build-console.ts"], { stdio: "inherit" });
  if (result.status !== 0) {
    console.error("svc: building the web console failed.");
    process.exit(1);
  }
}

main();
buildConsole();
