// The GPU builds of svc's whisper.cpp engine, beside the CPU levels: `vulkan.node`, one build for
// every vendor's graphics card (and Intel's integrated ones through Mesa), and `cuda.node` for NVIDIA's
// where a CUDA toolkit is installed. smart-whisper's vendored whisper.cpp (1.6) lacks the Vulkan
// shaders, so these builds take whisper.cpp 1.9.1 from the nodejs-whisper package (a devDependency
// that ships its full source) and compile it with CMake, then smart-whisper's binding against it,
// patched for 1.9.1's API (see `gpuPatches`).
//
// Optional by design: without their tools (Vulkan: CMake 3.19+, glslc, the Vulkan and SPIR-V headers,
// Debian's cmake glslc libvulkan-dev spirv-headers; CUDA: nvcc) a build is skipped with one line, and
// svc runs on the CPU builds. The ggml inside them is compiled for the platform's most portable CPU
// level, so they load on every processor svc supports; their heavy work runs on the GPU.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { nodeApiIncludes, packageDir, patched, run } from "./whisper-addon.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const nativeDir = path.join(root, "src/dictation/engines/whisper/native");
const sourcePackage = "nodejs-whisper";

/**
 * Where smart-whisper 0.8.1's binding and whisper.cpp 1.9.1 disagree. Applied after svc's abort
 * patch, to the GPU build only; each anchor must match exactly once.
 */
const gpuPatches = {
  "src/binding/transcribe.cc": [
    // 1.7 renamed the field.
    { anchor: "params.suppress_non_speech_tokens =", replace: "params.suppress_nst =" },
  ],
  "src/binding/model.cc": [
    // The binding left every other field uninitialised; 1.9.1 reads flash_attn, gpu_device, dtw_*.
    // The GPU is the one svc chose (gpu-devices.cc's useGgmlGpu).
    {
      anchor: "    whisper_context_params params;\n",
      replace:
        "    whisper_context_params params = whisper_context_default_params();\n    params.gpu_device = svc_gpu_device;\n",
    },
    { anchor: "class LoadModelWorker", before: "extern int svc_gpu_device;\n\n" },
    // A failed load (out of GPU memory, say) returned NULL here and crashed the process.
    {
      anchor: "        whisper_print_timings(context);\n",
      replace: "        if (context != nullptr) whisper_print_timings(context);\n",
    },
  ],
  "src/binding/binding.cc": [
    {
      anchor: "Napi::Object Init(",
      before: "void RegisterGpuDevices(Napi::Env env, Napi::Object exports);\n\n",
    },
    { anchor: "    WhisperModel::Init(env, exports);\n", before: "    RegisterGpuDevices(env, exports);\n" },
  ],
};

/**
 * Where whisper.cpp 1.9.1 needs newer headers than Debian 12's. Vulkan (1.3.239): the validation
 * layer's settings (VK_EXT_layer_settings, a debugging aid) are left out when the headers lack them.
 * CUDA (Debian's toolkit is 11.8): Hopper's programmatic dependent launch, an optional overlap of
 * one kernel's start with the last one's end, is declared to kernels only from CUDA 12.
 */
const sourcePatches = {
  "ggml/src/ggml-cuda/common.cuh": [
    {
      anchor: "CUDART_VERSION >= 11080))\n#    define GGML_CUDA_USE_PDL\n",
      replace: "CUDART_VERSION >= 12000))\n#    define GGML_CUDA_USE_PDL\n",
    },
  ],
  "ggml/src/ggml-vulkan/ggml-vulkan.cpp": [
    {
      anchor: "    VkBool32 enable_best_practice = layer_settings;\n",
      before: "#ifdef VK_EXT_layer_settings\n",
    },
    {
      anchor: "&app_info, layers, extensions, &layer_setting_info);\n",
      replace:
        "&app_info, layers, extensions, &layer_setting_info);\n#else\n    vk::InstanceCreateInfo instance_create_info(vk::InstanceCreateFlags{}, &app_info, layers, extensions);\n#endif\n",
    },
  ],
};

/** A patched copy of whisper.cpp's source in `into`, made again only when the package changed. */
function preparedSource(into) {
  const from = path.join(packageDir(sourcePackage), "cpp/whisper.cpp");
  const marker = path.join(into, ".svc-source");
  const version = JSON.parse(
    readFileSync(path.join(packageDir(sourcePackage), "package.json"), "utf8"),
  ).version;
  const wanted = `${sourcePackage}@${version} ${JSON.stringify(sourcePatches).length}`;
  if (existsSync(marker) && readFileSync(marker, "utf8") === wanted) return into;
  rmSync(into, { recursive: true, force: true });
  cpSync(from, into, { recursive: true });
  for (const file of Object.keys(sourcePatches)) {
    const at = path.join(into, file);
    writeFileSync(at, patched(file, readFileSync(at, "utf8"), sourcePatches));
  }
  writeFileSync(marker, wanted);
  return into;
}

const bindingSources = ["binding.cc", "common.cc", "model.cc", "transcribe.cc"];

/** The CUDA compiler: CUDACXX, else nvcc on PATH, else NVIDIA's default place. */
export function cudaCompiler(wrap = []) {
  if (process.env.CUDACXX) return process.env.CUDACXX;
  const argv = [...wrap, "sh", "-c", "command -v nvcc || ls /usr/local/cuda/bin/nvcc"];
  const found = spawnSync(argv[0], argv.slice(1), { encoding: "utf8" });
  return found.status === 0 ? found.stdout.trim().split("\n")[0] : null;
}

/** CMake's name for each platform's processor, for a build made on another one. */
const cmakeProcessor = { "linux-x64": "x86_64", "linux-arm64": "aarch64" };

/** Debian's cross compiler package and architecture name for each platform, for the hints below. */
const debianCross = {
  "linux-x64": { compiler: "g++-x86-64-linux-gnu", arch: "amd64" },
  "linux-arm64": { compiler: "g++-aarch64-linux-gnu", arch: "arm64" },
};

/**
 * Why the `api` build cannot be made here, or null when it can. A `cross` build (another platform's,
 * Vulkan only) also needs that platform's compiler and Vulkan loader to link with.
 */
function missingTools({ api, platform, cross, cmake, glslc, cxx, wrap }) {
  const sh = (command) => {
    const argv = [...wrap, "sh", "-c", command];
    return spawnSync(argv[0], argv.slice(1), { encoding: "utf8" });
  };
  const version = /version (\d+)\.(\d+)/.exec(sh(`${cmake} --version`).stdout ?? "");
  const [major, minor] = [Number(version?.[1] ?? 0), Number(version?.[2] ?? 0)];
  if (major < 3 || (major === 3 && minor < 19)) return "CMake 3.19 or newer is missing (apt install cmake)";
  if (api === "cuda") {
    const nvcc = cudaCompiler(wrap);
    if (!nvcc) return "no CUDA toolkit (nvcc) is installed";
    // ggml's CUDA backend needs cuBLAS, which a minimal toolkit (nvcc and the runtime) lacks.
    const libs = cudaLibraryDirs(nvcc, wrap);
    if (!libs.some((dir) => sh(`ls ${dir}/libcublas.so*`).status === 0)) {
      return `the CUDA toolkit of ${nvcc} has no cuBLAS (libcublas.so)`;
    }
    return null;
  }
  if (sh(`command -v ${glslc}`).status !== 0) return "glslc is missing (apt install glslc)";
  const debian = debianCross[platform];
  if (cross && sh(`command -v ${cxx}`).status !== 0)
    return `the cross compiler ${cxx} is missing (apt install ${debian?.compiler ?? cxx})`;
  const header = (name) => sh(`echo '#include <${name}>' | ${cxx} -x c++ -fsyntax-only -`).status === 0;
  if (!header("vulkan/vulkan.hpp")) return "the Vulkan headers are missing (apt install libvulkan-dev)";
  if (!header("spirv/unified1/spirv.hpp"))
    return "the SPIR-V headers are missing (apt install spirv-headers)";
  // The compiler answers the bare name when it has no such library for its platform.
  if (cross && !sh(`${cxx} -print-file-name=libvulkan.so`).stdout?.trim().startsWith("/")) {
    const arch = debian?.arch ?? platform;
    return `${platform}'s Vulkan loader to link with is missing (dpkg --add-architecture ${arch}; apt install libvulkan-dev:${arch})`;
  }
  return null;
}

function gpuKey({ api, platform, cc, cxx, level, wrap }) {
  const hash = createHash("sha256");
  for (const file of [
    fileURLToPath(import.meta.url),
    path.join(root, "scripts/whisper-addon.mjs"),
    path.join(nativeDir, "gpu-devices.cc"),
    path.join(packageDir("smart-whisper"), "package.json"),
    path.join(packageDir(sourcePackage), "package.json"),
  ]) {
    hash.update(readFileSync(file));
  }
  hash.update(JSON.stringify({ api, platform, cc, cxx, flags: level.flags, wrap }));
  return hash.digest("hex").slice(0, 16);
}

/**
 * Each GPU interface's name for people (src/dictation/engines/device-choice.ts has the same: this
 * file stays plain JavaScript, which npm's postinstall runs with node).
 */
export const apiName = { vulkan: "Vulkan", cuda: "CUDA" };

/**
 * Where the CUDA toolkit's libraries are, from nvcc's real place (NVIDIA's layout, or Debian's),
 * looked up inside `wrap` (the release's root). `/usr/local/bin/nvcc` is often a script that runs
 * the toolkit's own: its `exec` line names it.
 */
function cudaLibraryDirs(nvcc, wrap) {
  const inside = (command) => {
    const argv = [...wrap, "sh", "-c", command];
    return spawnSync(argv[0], argv.slice(1), { encoding: "utf8" }).stdout ?? "";
  };
  let real = inside(`readlink -f '${nvcc}'`).trim() || nvcc;
  const script = inside(`head -c 400 '${real}'`);
  real = /^#!.*\n(?:.*\n)*?exec\s+(\S+\/nvcc)\b/.exec(script)?.[1] ?? real;
  const toolkit = path.dirname(path.dirname(real));
  return ["lib64", "lib", "targets/x86_64-linux/lib", "lib64/stubs"]
    .map((dir) => path.join(toolkit, dir))
    .concat(["/usr/lib/x86_64-linux-gnu"]);
}

/**
 * The NVIDIA generations the CUDA build carries machine code for, not this machine's card: Pascal
 * (GTX 10xx, P40), Volta, Turing (RTX 20xx, T4), Ampere (A100; RTX 30xx), Ada (RTX 40xx, L4) and
 * Hopper (H100, H200), plus Hopper's PTX, which newer cards compile once at first load.
 * SVC_CUDA_ARCHITECTURES (CMake's list) replaces it, e.g. `89-real` for one card and a shorter build.
 */
const cudaArchitectures = "61-real;70-real;75-real;80-real;86-real;89-real;90-real;90-virtual";

function cudaLinkFlags(wrap) {
  return [
    ...cudaLibraryDirs(cudaCompiler(wrap) ?? "nvcc", wrap).map((dir) => `-L${dir}`),
    "-Wl,-rpath,$ORIGIN",
    "-lcudart",
    "-lcublas",
    "-lcublasLt",
    "-lcuda",
  ];
}

/**
 * Builds `dir/<api>.node` (`api`: vulkan or cuda) unless one with the same inputs is there. Never
 * throws: answers `{ built }` or `{ skipped: reason }`, and the caller prints the reason in one line.
 */
export async function buildGpuAddon({ api, platform, cross = false, dir, cc, cxx, level, base, wrap, log }) {
  const cmake = process.env.CMAKE ?? "cmake";
  const glslc = process.env.GLSLC ?? "glslc";
  try {
    if (!packageDir(sourcePackage))
      return { skipped: `${sourcePackage} (whisper.cpp 1.9.1's source) is not installed` };
    const target = path.join(dir, `${api}.node`);
    const stampPath = path.join(dir, `${api}.json`);
    const key = gpuKey({ api, platform, cc, cxx, level, wrap });
    if (existsSync(target) && existsSync(stampPath) && process.env.SVC_WHISPER_REBUILD !== "1") {
      if (JSON.parse(readFileSync(stampPath, "utf8")).key === key) return { built: target, cached: true };
    }
    const missing = missingTools({ api, platform, cross, cmake, glslc, cxx, wrap });
    if (missing) return { skipped: missing };
    const started = Date.now();
    log(`svc: building whisper.cpp 1.9.1 with ${apiName[api]} for ${platform}; several minutes`);
    const source = preparedSource(path.join(dir, "gpu-src"));
    // Kept between builds: CMake recompiles only what changed (the shaders or kernels take most of
    // the time).
    const cmakeDir = path.join(dir, `${api}-cmake`);
    const cpuFlags = [...base, ...level.flags].join(" ");
    await run(wrap, cmake, [
      "-S",
      source,
      "-B",
      cmakeDir,
      "-DCMAKE_BUILD_TYPE=Release",
      `-DCMAKE_C_COMPILER=${cc}`,
      `-DCMAKE_CXX_COMPILER=${cxx}`,
      `-DCMAKE_C_FLAGS=${cpuFlags}`,
      `-DCMAKE_CXX_FLAGS=${cpuFlags}`,
      "-DBUILD_SHARED_LIBS=OFF",
      "-DCMAKE_POSITION_INDEPENDENT_CODE=ON",
      // Another platform's build: CMake then finds that platform's libraries (its Vulkan loader), and
      // ggml builds its shader generator for this machine.
      ...(cross ? ["-DCMAKE_SYSTEM_NAME=Linux", `-DCMAKE_SYSTEM_PROCESSOR=${cmakeProcessor[platform]}`] : []),
      ...(api === "vulkan"
        ? ["-DGGML_VULKAN=ON"]
        : [
            "-DGGML_CUDA=ON",
            `-DCMAKE_CUDA_COMPILER=${cudaCompiler(wrap)}`,
            `-DCMAKE_CUDA_ARCHITECTURES=${process.env.SVC_CUDA_ARCHITECTURES ?? cudaArchitectures}`,
          ]),
      "-DGGML_NATIVE=OFF",
      // The level's flags above decide the instruction set, not ggml's own switches.
      ...["SSE42", "AVX", "AVX2", "BMI2", "FMA", "F16C", "AVX512"].map((name) => `-DGGML_${name}=OFF`),
      "-DGGML_OPENMP=OFF",
      "-DGGML_CCACHE=OFF",
      "-DWHISPER_BUILD_TESTS=OFF",
      "-DWHISPER_BUILD_EXAMPLES=OFF",
      "-DWHISPER_SDL2=OFF",
    ]);
    await run(wrap, cmake, [
      "--build",
      cmakeDir,
      "--target",
      "whisper",
      "-j",
      String(availableParallelism()),
    ]);

    const objects = path.join(dir, `${api}-obj`);
    mkdirSync(objects, { recursive: true });
    const binding = path.join(packageDir("smart-whisper"), "src/binding");
    const includes = [
      `-I${nodeApiIncludes()}`,
      `-I${packageDir("node-addon-api") ?? path.join(packageDir("smart-whisper"), "node-addon-api")}`,
      `-I${binding}`,
      `-I${path.join(source, "include")}`,
      `-I${path.join(source, "ggml/include")}`,
    ];
    const compiled = [];
    for (const name of [...bindingSources.map((file) => `src/binding/${file}`), "gpu-devices.cc"]) {
      const from =
        name === "gpu-devices.cc" ? path.join(nativeDir, name) : path.join(binding, path.basename(name));
      const copy = path.join(objects, path.basename(name));
      // svc's abort patch first (as in the CPU builds), then the bridge to 1.9.1.
      writeFileSync(copy, patched(name, patched(name, readFileSync(from, "utf8")), gpuPatches));
      const object = `${copy}.o`;
      compiled.push(
        run(wrap, cxx, [
          ...base,
          ...level.flags,
          ...includes,
          "-std=gnu++17",
          "-fno-rtti",
          ...(api === "vulkan" ? ["-DSVC_GPU_VULKAN"] : []),
          "-c",
          copy,
          "-o",
          object,
        ]),
      );
    }
    await Promise.all(compiled);
    const libs = [
      "src/libwhisper.a",
      "ggml/src/libggml.a",
      `ggml/src/ggml-${api}/libggml-${api}.a`,
      "ggml/src/libggml-cpu.a",
      "ggml/src/libggml-base.a",
    ].map((lib) => path.join(cmakeDir, lib));
    await run(wrap, cxx, [
      "-shared",
      "-pthread",
      "-s",
      "-Wl,-O1",
      "-Wl,--as-needed",
      "-static-libstdc++",
      "-static-libgcc",
      "-Wl,--exclude-libs,ALL",
      "-o",
      `${target}.tmp`,
      ...[...bindingSources, "gpu-devices.cc"].map((name) => path.join(objects, `${name}.o`)),
      "-Wl,--start-group",
      ...libs,
      "-Wl,--end-group",
      // Vulkan: the loader (libvulkan1) is the build's only run-time need beyond glibc. CUDA: the
      // driver (libcuda.so.1), and the toolkit's runtime libraries, found beside cuda.node first.
      ...(api === "vulkan" ? ["-lvulkan"] : cudaLinkFlags(wrap)),
      "-ldl",
      "-lm",
    ]);
    renameSync(`${target}.tmp`, target);
    rmSync(objects, { recursive: true, force: true });
    writeFileSync(stampPath, `${JSON.stringify({ key, platform, cc, cxx, wrap, cpu: level.name })}\n`);
    log(
      `svc: built whisper.cpp with ${apiName[api]} for ${platform} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    return { built: target };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { skipped: `its build failed: ${reason.split("\n").slice(-6).join(" ").slice(0, 600)}` };
  }
}
