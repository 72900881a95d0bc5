// Builds svc's whisper.cpp engine: smart-whisper's N-API binding and the whisper.cpp it vendors, once per
// CPU level in src/dictation/engines/whisper/native/variants.json, plus the small cpu-features probe that
// picks one at run time. So no build carries the build machine's instruction set: a binary made on an
// AVX-512 desktop runs on a Celeron without AVX (it takes the SSE4.2 build there) instead of dying with SIGILL.
//
// Only the files whose code depends on the instruction set (ggml) are compiled per level; the binding
// and whisper.cpp itself once. libstdc++ and libgcc are linked statically, so a build needs only the glibc
// it was compiled against (the release compiles in Debian 11 for glibc 2.31; see scripts/release.ts).
//
//   node scripts/whisper-addon.mjs [--platform linux-x64|linux-arm64] [--out DIR] [--wrap "chroot ROOT"]
//
// Runs under plain node (npm's postinstall calls it before anything else of ours is usable). Other
// platforms (macOS, Windows) get smart-whisper's own node-gyp build for the machine it runs on.
// Environment: CC/CXX override the compilers; SVC_WHISPER_REBUILD=1 rebuilds what is up to date.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { apiName, buildGpuAddon, cudaCompiler } from "./whisper-gpu.mjs";

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const nativeDir = path.join(root, "src/dictation/engines/whisper/native");
/** @type {Record<string, {name: string, label: string, flags: string[], needs: string[]}[]>} */
const variants = JSON.parse(readFileSync(path.join(nativeDir, "variants.json"), "utf8"));

export const hostPlatform = () =>
  `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
export const defaultOut = path.join(root, "build/whisper");

/** Compilers per target: the host's own for its platform, Debian's cross compilers otherwise. */
const toolchains = {
  "linux-x64": { cc: "x86_64-linux-gnu-gcc", cxx: "x86_64-linux-gnu-g++", base: ["-m64", "-mtune=generic"] },
  "linux-arm64": { cc: "aarch64-linux-gnu-gcc", cxx: "aarch64-linux-gnu-g++", base: [] },
};

// The vendored whisper.cpp: ggml's files hold the SIMD kernels (compiled per level), the rest once.
const perLevelSources = [
  "whisper.cpp/ggml/src/ggml.c",
  "whisper.cpp/ggml/src/ggml-alloc.c",
  "whisper.cpp/ggml/src/ggml-backend.c",
  "whisper.cpp/ggml/src/ggml-quants.c",
  "whisper.cpp/ggml/src/ggml-aarch64.c",
];
const onceSources = [
  "src/binding/binding.cc",
  "src/binding/common.cc",
  "src/binding/model.cc",
  "src/binding/transcribe.cc",
  "whisper.cpp/src/whisper.cpp",
];

/**
 * svc's one change to smart-whisper's binding: a run can be stopped. `params.abort`, an Int32Array
 * over a SharedArrayBuffer, becomes whisper.cpp's abort callback (checked between two steps of the
 * encoder's and decoder's graphs) and its encoder-begin callback (checked before each 30 s window):
 * a non-zero first element ends the run within milliseconds, with an error. The caller keeps the
 * array alive until the run's callback has been called. Each anchor must match exactly once, so a
 * binding that changed fails the build here instead of losing the abort quietly.
 */
const patches = {
  "src/binding/transcribe.cc": [
    {
      anchor:
        "    return params;\n}\n\nstruct smart_whisper_transcribe_params smart_whisper_transcribe_params_from_js",
      before: `    if (o.Has("abort") && o.Get("abort").IsTypedArray()) {
        Napi::TypedArray flag = o.Get("abort").As<Napi::TypedArray>();
        if (flag.TypedArrayType() == napi_int32_array && flag.ElementLength() >= 1) {
            int32_t* cell = flag.As<Napi::Int32Array>().Data();
            params.abort_callback = [](void* data) {
                return __atomic_load_n(static_cast<int32_t*>(data), __ATOMIC_RELAXED) != 0;
            };
            params.abort_callback_user_data = cell;
            params.encoder_begin_callback = [](whisper_context*, whisper_state*, void* data) {
                return __atomic_load_n(static_cast<int32_t*>(data), __ATOMIC_RELAXED) == 0;
            };
            params.encoder_begin_callback_user_data = cell;
        }
    }

`,
    },
  ],
};

/**
 * `source`'s text with `table`'s patches applied (svc's own by default): each inserts `before` its
 * anchor, or puts `replace` in the anchor's place.
 */
export function patched(source, text, table = patches) {
  let out = text;
  for (const { anchor, before, replace } of table[source] ?? []) {
    const at = out.indexOf(anchor);
    if (at < 0 || out.indexOf(anchor, at + 1) >= 0) {
      throw new Error(
        `smart-whisper's ${source} changed: svc's patch at "${anchor.trim()}" no longer applies (scripts/whisper-addon.mjs).`,
      );
    }
    out =
      replace === undefined
        ? out.slice(0, at) + before + out.slice(at)
        : out.slice(0, at) + replace + out.slice(at + anchor.length);
  }
  return out;
}

export function packageDir(name) {
  try {
    return path.dirname(require.resolve(`${name}/package.json`));
  } catch {
    return null;
  }
}

/** Node-API's C headers: the node-api-headers package, else the ones installed beside node. */
export function nodeApiIncludes() {
  const headers = packageDir("node-api-headers");
  if (headers && existsSync(path.join(headers, "include/node_api.h"))) return path.join(headers, "include");
  const beside = path.resolve(path.dirname(process.execPath), "../include/node");
  if (existsSync(path.join(beside, "node_api.h"))) return beside;
  throw new Error(
    "Node-API headers not found: run `npm install` (they come with the node-api-headers package).",
  );
}

function compilerFor(platform, kind, wrap) {
  const env = kind === "cc" ? process.env.CC : process.env.CXX;
  if (env) return env;
  const chain = toolchains[platform];
  // The host's own platform: plain gcc/g++ when the triplet-named one is absent (not every distribution has it).
  const probe = [...wrap, "sh", "-c", `command -v ${chain[kind]}`];
  const found = spawnSync(probe[0], probe.slice(1)).status === 0;
  if (platform === hostPlatform() && !found) return kind === "cc" ? "gcc" : "g++";
  return chain[kind];
}

export function run(wrap, command, args) {
  const argv = [...wrap, command, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr = (stderr + chunk).slice(-8000);
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${argv.join(" ").slice(0, 300)}\nexited with ${code}\n${stderr}`));
    });
  });
}

/** Runs `jobs` with at most `limit` at once; the first failure fails the whole build. */
async function pool(jobs, limit) {
  const queue = [...jobs];
  const workers = Array.from({ length: Math.min(limit, queue.length) }, async () => {
    for (let job = queue.shift(); job; job = queue.shift()) await job();
  });
  await Promise.all(workers);
}

/** What a build is made of: a change to any of it makes the next build compile again. */
function buildKey(platform, cc, cxx) {
  const hash = createHash("sha256");
  for (const file of [
    fileURLToPath(import.meta.url),
    path.join(nativeDir, "variants.json"),
    path.join(nativeDir, "cpu-features.c"),
  ]) {
    hash.update(readFileSync(file));
  }
  const whisperPackage = packageDir("smart-whisper");
  hash.update(readFileSync(path.join(whisperPackage, "package.json")));
  hash.update(JSON.stringify({ platform, cc, cxx }));
  return hash.digest("hex").slice(0, 16);
}

/**
 * Compiles every level of `platform` into `out/<platform>/<level>.node` plus `cpu-features.node`,
 * then (unless `gpu` is false: the release makes those in a root of their own) the GPU build where
 * this machine can make it (scripts/whisper-gpu.mjs), each unless a build with the same inputs is
 * already there. Returns the folder.
 */
export async function buildWhisperAddons({
  platform = hostPlatform(),
  out = defaultOut,
  wrap = [],
  log = console.log,
  gpu = true,
} = {}) {
  const dir = await buildCpuLevels({ platform, out, wrap, log });
  const levels = variants[platform];
  if (levels && gpu) await buildGpu({ platform, dir, wrap, log, level: levels.at(-1) });
  return dir;
}

/**
 * Only the GPU builds of `platform`, into `out/<platform>/`, made inside `wrap` (the release makes
 * them in a Debian 12 root: its CMake and Vulkan headers are new enough, Debian 11's are not).
 * Answers the path of each build made (or already there with the same inputs) by interface.
 */
export async function buildGpuAddons({
  platform = hostPlatform(),
  out = defaultOut,
  wrap = [],
  log = console.log,
} = {}) {
  const levels = variants[platform];
  if (!levels) return {};
  return await buildGpu({ platform, dir: path.join(out, platform), wrap, log, level: levels.at(-1) });
}

/**
 * The GPU builds (Vulkan; CUDA where a toolkit is installed), or one line each saying why there is
 * none: they never fail an install. SVC_WHISPER_GPU: `off` skips both, `vulkan` or `cuda` only that one.
 * Answers the path of each build made, by interface: a file left by an earlier build is not one.
 */
async function buildGpu({ platform, dir, wrap, log, level }) {
  const wanted = process.env.SVC_WHISPER_GPU ?? "";
  const built = {};
  for (const api of ["vulkan", "cuda"]) {
    const name = apiName[api];
    const skip = (reason) => log(`svc: no ${name} build of whisper.cpp: ${reason}.`);
    // CUDA is NVIDIA's x86-64 build only, and needs a toolkit: quietly absent elsewhere.
    if (api === "cuda" && (platform !== "linux-x64" || (wanted !== "cuda" && !cudaCompiler(wrap)))) continue;
    if (wanted === "off" || (wanted !== "" && wanted !== api)) {
      skip(`SVC_WHISPER_GPU=${wanted}`);
      continue;
    }
    // Vulkan cross-compiles between Linux platforms (its shaders are SPIR-V, made by a tool built for
    // this machine); CUDA is made only where it runs.
    const cross = platform !== hostPlatform();
    if (cross && (api === "cuda" || !hostPlatform().startsWith("linux-") || !platform.startsWith("linux-"))) {
      skip(`it is built only on ${platform} itself`);
      continue;
    }
    const cc = compilerFor(platform, "cc", wrap);
    const cxx = compilerFor(platform, "cxx", wrap);
    const base = compileFlags(platform);
    const result = await buildGpuAddon({ api, platform, cross, dir, cc, cxx, level, base, wrap, log });
    if (!result.skipped) built[api] = result.built;
    // One made earlier (in the release's root, say) stays, and `bun run build` embeds it: say so.
    else if (existsSync(path.join(dir, `${api}.node`)))
      log(
        `svc: the ${name} build of whisper.cpp was not made again (${result.skipped}); the earlier one stays.`,
      );
    else skip(result.skipped);
  }
  return built;
}

/** Flags every unit of a build gets, before its includes and its CPU level's own. */
const compileFlags = (platform) => [
  ...toolchains[platform].base,
  "-O3",
  "-fPIC",
  "-pthread",
  "-fvisibility=hidden",
  "-w", // vendored code's warnings are noise here; a failure still prints the compiler's errors
  "-DNDEBUG", // without it ggml prints allocator debug lines on every transcription
  "-D_GNU_SOURCE",
  "-D_FILE_OFFSET_BITS=64",
  "-DBUILDING_NODE_EXTENSION",
  "-DNODE_GYP_MODULE_NAME=svc_whisper",
];

async function buildCpuLevels({ platform, out, wrap, log }) {
  const levels = variants[platform];
  if (!levels) return buildWithNodeGyp(platform, out, log);
  const whisper = packageDir("smart-whisper");
  if (!whisper) throw new Error("smart-whisper is not installed: run `npm install`.");
  const cc = compilerFor(platform, "cc", wrap);
  const cxx = compilerFor(platform, "cxx", wrap);
  const dir = path.join(out, platform);
  const stampPath = path.join(dir, "build.json");
  const key = buildKey(platform, cc, cxx);
  const complete = levels.every((level) => existsSync(path.join(dir, `${level.name}.node`)));
  if (complete && existsSync(stampPath) && process.env.SVC_WHISPER_REBUILD !== "1") {
    // A build made inside `wrap` (the release's Debian 11 root) serves a plain build too: it runs on
    // more systems, not fewer. A wrapped build asks for one made the same way.
    const stamp = JSON.parse(readFileSync(stampPath, "utf8"));
    const sameRoot = wrap.length === 0 || JSON.stringify(stamp.wrap ?? []) === JSON.stringify(wrap);
    if (stamp.key === key && sameRoot) return dir;
  }

  const started = Date.now();
  log(
    `svc: building whisper.cpp for ${platform} (${levels.map((level) => level.name).join(", ")}); about a minute`,
  );
  const objects = path.join(dir, "obj");
  rmSync(objects, { recursive: true, force: true });
  const base = [
    ...compileFlags(platform),
    `-I${nodeApiIncludes()}`,
    `-I${packageDir("node-addon-api") ?? path.join(whisper, "node-addon-api")}`,
    `-I${path.join(whisper, "whisper.cpp/include")}`,
    `-I${path.join(whisper, "whisper.cpp/ggml/include")}`,
    `-I${path.join(whisper, "whisper.cpp/ggml/src")}`,
  ];
  const compile = (source, objectDir, flags) => {
    const cpp = /\.(cc|cpp)$/.test(source);
    const object = path.join(objectDir, `${path.basename(source)}.o`);
    const args = [
      ...base,
      ...flags,
      ...(cpp ? ["-std=gnu++17", "-fno-rtti"] : ["-std=gnu11"]),
      "-c",
      source,
      "-o",
      object,
    ];
    return { object, job: () => run(wrap, cpp ? cxx : cc, args) };
  };

  const jobs = [];
  mkdirSync(path.join(objects, "once"), { recursive: true });
  mkdirSync(path.join(objects, "patched"), { recursive: true });
  const shared = onceSources.map((source) => {
    if (!patches[source]) return compile(path.join(whisper, source), path.join(objects, "once"), []);
    const copy = path.join(objects, "patched", path.basename(source));
    writeFileSync(copy, patched(source, readFileSync(path.join(whisper, source), "utf8")));
    return compile(copy, path.join(objects, "once"), [`-I${path.dirname(path.join(whisper, source))}`]);
  });
  jobs.push(...shared.map((unit) => unit.job));
  const perLevel = levels.map((level) => {
    mkdirSync(path.join(objects, level.name), { recursive: true });
    const units = perLevelSources.map((source) =>
      compile(path.join(whisper, source), path.join(objects, level.name), level.flags),
    );
    jobs.push(...units.map((unit) => unit.job));
    return { level, objects: units.map((unit) => unit.object) };
  });
  const probe = compile(path.join(nativeDir, "cpu-features.c"), objects, []);
  jobs.push(probe.job);
  await pool(jobs, availableParallelism());

  const link = (objectFiles, output, extra) =>
    run(wrap, cxx, [
      "-shared",
      "-pthread",
      "-s",
      "-Wl,-O1",
      "-Wl,--as-needed",
      ...extra,
      "-o",
      output,
      ...objectFiles,
    ]);
  // The static runtime's own symbols stay inside the library: only Node-API's entry point is exported.
  const staticRuntime = ["-static-libstdc++", "-static-libgcc", "-Wl,--exclude-libs,ALL", "-lm"];
  await pool(
    [
      ...perLevel.map(
        ({ level, objects: own }) =>
          () =>
            link(
              [...shared.map((unit) => unit.object), ...own],
              path.join(dir, `${level.name}.node.tmp`),
              staticRuntime,
            ),
      ),
      () => link([probe.object], path.join(dir, "cpu-features.node.tmp"), []),
    ],
    availableParallelism(),
  );
  for (const name of [...levels.map((level) => level.name), "cpu-features"]) {
    renameSync(path.join(dir, `${name}.node.tmp`), path.join(dir, `${name}.node`));
  }
  rmSync(objects, { recursive: true, force: true });
  const stamp = { key, platform, cc, cxx, wrap, levels: levels.map((level) => level.name) };
  writeFileSync(stampPath, `${JSON.stringify(stamp)}\n`);
  log(`svc: built whisper.cpp for ${platform} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return dir;
}

/** Where svc has no per-level builds (macOS, Windows): smart-whisper's own build for this machine. */
function buildWithNodeGyp(platform, out, log) {
  if (platform !== hostPlatform())
    throw new Error(`svc builds whisper.cpp for ${platform} only on ${platform} itself.`);
  const whisper = packageDir("smart-whisper");
  if (!whisper) throw new Error("smart-whisper is not installed: run `npm install`.");
  const dir = path.join(out, platform);
  const target = path.join(dir, "native.node");
  if (existsSync(target) && process.env.SVC_WHISPER_REBUILD !== "1") return dir;
  const gyp =
    process.env.npm_config_node_gyp ??
    path.resolve(
      path.dirname(process.execPath),
      "../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js",
    );
  log(`svc: building whisper.cpp for ${platform} with node-gyp`);
  const result = spawnSync(process.execPath, [gyp, "rebuild", "--jobs=max"], {
    cwd: whisper,
    env: { ...process.env, CFLAGS: "-DNDEBUG", CXXFLAGS: "-DNDEBUG" },
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  if (result.status !== 0) throw new Error(`${result.stdout ?? ""}${result.stderr ?? ""}`.slice(-8000));
  mkdirSync(dir, { recursive: true });
  writeFileSync(target, readFileSync(path.join(whisper, "build/Release/smart-whisper.node")));
  return dir;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { platform: { type: "string" }, out: { type: "string" }, wrap: { type: "string" } },
  });
  try {
    const dir = await buildWhisperAddons({
      platform: values.platform,
      out: values.out ? path.resolve(values.out) : undefined,
      wrap: values.wrap ? values.wrap.split(" ").filter(Boolean) : [],
    });
    console.log(dir);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    console.error(
      "svc: building whisper.cpp failed (it needs a C and C++ compiler: g++, or build-essential).",
    );
    process.exit(1);
  }
}
