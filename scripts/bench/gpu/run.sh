#!/usr/bin/env bash
# whisper.cpp's own tools on a GPU machine that has cmake, g++ and (for CUDA) nvcc but no Node or Bun:
# the CPU build vs CUDA vs Vulkan (where glslc and the Vulkan headers are), on a synthetic
# large-v3-turbo-shaped model (synthetic-model.c, byte for byte what svc's tests write) and a 5 s
# clip of LibriVox speech (clip5s.wav, from Debian's pocketsphinx-testdata). Same whisper.cpp 1.9.1
# source as svc's GPU build.
#
#   scripts/bench/gpu/run.sh build   # the builds (time each; re-run continues where it stopped)
#   scripts/bench/gpu/run.sh bench   # the timings, into $OUT (or ./bench-results/gpu)
#   scripts/bench/gpu/run.sh svc     # svc itself from build/device-kit (kit.sh packs it): its CUDA
#                                    # build for this card, `svc version`, then `bun run bench devices`
#                                    # (BENCH_SHAPE, default large-v3-turbo; BENCH_RUNS) on BUILDS
#
# `svc` fits one ten-minute command: the CUDA build stops after CUDA_BUILD_S (390) and the bench after
# BENCH_S (180), each row of which reaches $OUT/devices.txt as it is measured. Run again at once
# while the machine is warm and the build continues where it stopped, or is reused.
#
# SRC: whisper.cpp's source (default node_modules/nodejs-whisper/cpp/whisper.cpp; carry it).
# CUDA_ARCH: default "native" (the card in the machine). BUILDS: default "cpu cuda vulkan".
# SHAPE: the model's width, heads, encoder and decoder layers, mels, vocabulary (default large-v3-turbo's).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
src=${SRC:-$root/node_modules/nodejs-whisper/cpp/whisper.cpp}
work=$root/build/gpu-bench # ignored by git: kept between calls on a warm machine
out=${OUT:-$root/bench-results/gpu}
jobs=$(nproc)
builds=${BUILDS:-cpu cuda vulkan}
shape=${SHAPE:-1280 20 32 4 128 51866}
model=$work/model-${shape// /-}.bin
wants() { [[ " $builds " == *" $1 "* ]]; }
unxz() { # an xz file's bytes, unpacked to stdout: xz, else Python's lzma (not every image has xz)
  if command -v xz >/dev/null; then xz -dc "$1"; else
    python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$1"
  fi
}
mkdir -p "$work" "$out"

configure() { # name, extra cmake flags...
  local name=$1
  shift
  cmake -S "$src" -B "$work/$name" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=ON \
    -DWHISPER_BUILD_EXAMPLES=ON -DWHISPER_BUILD_TESTS=OFF -DWHISPER_SDL2=OFF -DWHISPER_CURL=OFF "$@" >"$out/$name-configure.log" 2>&1
}

build_one() { # name, extra cmake flags...
  local name=$1 started
  started=$(date +%s)
  configure "$@" && cmake --build "$work/$name" -j "$jobs" --target whisper-cli whisper-bench >"$out/$name-build.log" 2>&1 &&
    echo "$name: built in $(($(date +%s) - started)) s" | tee -a "$out/builds.txt" ||
    echo "$name: build failed, see $out/$name-build.log" | tee -a "$out/builds.txt"
}

case "${1:-}" in
build)
  gcc -O2 -o "$work/synthetic-model" "$here/synthetic-model.c"
  # large-v3-turbo: 1280 wide, 20 heads, 32 encoder and 4 decoder layers, 128 mels, 51866 tokens (1.6 GB)
  # shellcheck disable=SC2086
  [ -f "$model" ] || "$work/synthetic-model" "$model" $shape
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$out/gpu.txt" || true
  lscpu | grep -E "Model name|^CPU\(s\)" | tee "$out/cpu.txt"
  if wants cpu && [ ! -x "$work/cpu/bin/whisper-cli" ]; then build_one cpu; fi
  if ! wants cuda; then :; elif command -v nvcc >/dev/null; then
    [ -x "$work/cuda/bin/whisper-cli" ] || build_one cuda -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-native}"
  else echo "cuda: no nvcc" | tee -a "$out/builds.txt"; fi
  if ! wants vulkan; then :; elif command -v glslc >/dev/null && [ -f /usr/include/vulkan/vulkan.hpp ]; then
    [ -x "$work/vulkan/bin/whisper-cli" ] || build_one vulkan -DGGML_VULKAN=ON
  else echo "vulkan: no glslc or Vulkan headers here" | tee -a "$out/builds.txt"; fi
  ;;
bench)
  for name in $builds; do
    bin=$work/$name/bin
    [ -x "$bin/whisper-cli" ] || continue
    if [ "$name" = cpu ]; then gpu=(-ng); else gpu=(); fi
    # The encoder alone at the full 30 s window, then the 5 s clip as svc asks for it (English, greedy,
    # audio_ctx 288: svc's audioCtxFor for 5 s), without temperature fallback, so random weights give
    # one decoding pass on every device: compare encode ms and decode ms per run as well as the total.
    timeout 240 "$bin/whisper-bench" -m "$model" -t "$jobs" -w 0 ${gpu[@]+"${gpu[@]}"} >"$out/$name-bench.txt" 2>&1 || true
    for run in 1 2 3; do
      TIMEFORMAT="$name run $run: %R s wall"
      { time "$bin/whisper-cli" -m "$model" -f "$here/clip5s.wav" -t "$jobs" -l en -bs 1 -bo 1 -nf -ac 288 -nt \
        ${gpu[@]+"${gpu[@]}"} >>"$out/$name-cli.txt" 2>&1; } 2>>"$out/$name-cli.txt" || true
    done
    grep -hE "wall|total time|encode time|decode time" "$out/$name-bench.txt" "$out/$name-cli.txt" | sed "s/^/$name: /" |
      tee -a "$out/summary.txt"
  done
  ;;
svc)
  kit=$root/build/device-kit
  [ -f "$kit/bun.xz" ] || {
    echo "run.sh: build/device-kit is missing: run scripts/bench/gpu/kit.sh where npm install ran, and carry it" >&2
    exit 2
  }
  mkdir -p "$kit/bin"
  unxz "$kit/bun.xz" >"$kit/bin/bun"
  chmod +x "$kit/bin/bun"
  unxz "$kit/modules.tar.xz" | tar -x -C "$root"
  unxz "$kit/builds.tar.xz" | tar -x -C "$root"
  export PATH="$kit/bin:$PATH"
  # The Vulkan loader: the machine's own, else the kit's; NVIDIA's Vulkan driver where the loader
  # would not look for it (the lent machine keeps it under /usr/local/nvidia).
  if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1 '; then
    export LD_LIBRARY_PATH="$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
  icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  if [ -f "$icd" ] && [ -z "${VK_DRIVER_FILES:-}" ]; then export VK_DRIVER_FILES=$icd; fi
  { nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>/dev/null || true; } | tee "$out/gpu.txt"
  if wants cuda; then
    nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null || true)
    if [ -n "$nvcc" ]; then
      # cuda.node finds the toolkit's runtime (libcudart, libcublas) through the loader's path here;
      # a release puts them beside it instead.
      toolkit=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
      export LD_LIBRARY_PATH="$toolkit/lib64:$toolkit/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
      started=$(date +%s)
      # shellcheck disable=SC2016
      SVC_WHISPER_GPU=cuda SVC_CUDA_ARCHITECTURES="${CUDA_ARCH:-native}" timeout "${CUDA_BUILD_S:-390}" bun -e '
        const { buildGpuAddons } = await import("./scripts/whisper-addon.mjs");
        process.exit((await buildGpuAddons()).cuda ? 0 : 1);' 2>&1 | tee "$out/cuda-build.txt" &&
        echo "cuda: svc's build made in $(($(date +%s) - started)) s" | tee -a "$out/builds.txt" ||
        echo "cuda: svc's build failed after $(($(date +%s) - started)) s (cuda-build.txt)" | tee -a "$out/builds.txt"
      # timeout stops Bun, not the compilers it started: left running they would skew the CPU row.
      pkill -f "$root/build/whisper/linux-x64/cuda-cmake" 2>/dev/null || true
    else echo "cuda: no nvcc" | tee -a "$out/builds.txt"; fi
  fi
  # What auto chooses here, as a person would see it.
  bun src/main.ts version 2>&1 | tee "$out/svc-version.txt" || true
  devices=${BENCH_DEVICES:-${builds// /,}}
  BENCH_SHAPE=${BENCH_SHAPE:-large-v3-turbo} BENCH_DEVICES=$devices timeout "${BENCH_S:-180}" \
    bun scripts/bench.ts devices 2>&1 | tee "$out/devices.txt"
  ;;
*)
  echo "usage: $0 build|bench|svc" >&2
  exit 2
  ;;
esac
