#!/usr/bin/env bash
# Packs what svc needs to run on a GPU machine that has no Node or Bun (a CUDA toolkit, CMake and g++
# only, and at most 64 MiB brought along with the working tree) into build/device-kit/, then checks
# the kit here as that machine would use it, so no GPU time is spent finding a missing piece:
#
#   bun.xz               this checkout's Bun, the runtime (107 MB; about 39 MB packed)
#   modules.tar.xz       the packages svc's whisper engine and `bun run bench devices` load, and the
#                        sources the CUDA build compiles: whisper.cpp 1.9.1 (from nodejs-whisper,
#                        without its mobile and browser examples) and smart-whisper's binding
#   builds.tar.xz        svc's CPU builds, and the Vulkan build with its whisper-cli when made here;
#                        the web console's bundle (src/web/dist), which main.ts imports
#   lib/libvulkan.so.1   the Vulkan loader, used only where the machine has none
#
#   scripts/bench/gpu/kit.sh            pack and check (two to three minutes on two cores)
#   KIT_CHECK=0 scripts/bench/gpu/kit.sh
#                                       pack only
#
# On the GPU machine: `scripts/bench/gpu/run.sh svc` with build/device-kit carried (docs/benchmarks.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
kit=$root/build/device-kit
builds=build/whisper/linux-x64
cd "$root"

[ "$(uname -m)" = x86_64 ] || {
  echo "kit.sh: the GPU machine is x86-64; pack the kit on one" >&2
  exit 2
}
for need in src/web/dist "$builds/build.json" node_modules/nodejs-whisper/cpp/whisper.cpp node_modules/.bin/bun; do
  [ -e "$need" ] || {
    echo "kit.sh: $need is missing: run npm install first" >&2
    exit 2
  }
done

rm -rf "$kit"
mkdir -p "$kit/lib"
started=$(date +%s)

# The runtime: the binary the npm package installed, not a wrapper script.
# -6: -9 packs it 3 % smaller in four times as long.
xz -T0 -6 -c "$(readlink -f node_modules/.bin/bun)" >"$kit/bun.xz"

# What `bun src/main.ts version` and `bun run bench devices` import (audio-decode's WAV path, hono,
# valibot, modern-tar), and what scripts/whisper-gpu.mjs compiles. smart-whisper's own whisper.cpp
# (1.6) is left out: the CPU builds travel built.
modules=(hono valibot @valibot audio-decode audio-type @audio modern-tar node-api-headers node-addon-api)
tar -cf - --exclude='smart-whisper/whisper.cpp' \
  --exclude='nodejs-whisper/cpp/whisper.cpp/media' \
  --exclude='nodejs-whisper/cpp/whisper.cpp/samples' \
  --exclude='nodejs-whisper/cpp/whisper.cpp/examples/talk-llama' \
  --exclude='nodejs-whisper/cpp/whisper.cpp/examples/whisper.android*' \
  --exclude='nodejs-whisper/cpp/whisper.cpp/examples/whisper.swiftui' \
  --exclude='nodejs-whisper/cpp/whisper.cpp/examples/whisper.objc' \
  --exclude='nodejs-whisper/cpp/whisper.cpp/examples/*.wasm' \
  --exclude='nodejs-whisper/cpp/whisper.cpp/examples/wchess' \
  "${modules[@]/#/node_modules/}" node_modules/smart-whisper \
  node_modules/nodejs-whisper/package.json node_modules/nodejs-whisper/cpp/whisper.cpp |
  xz -T0 -9 >"$kit/modules.tar.xz"

# The CPU builds, and the Vulkan build when this machine made one: the GPU machine then has a Vulkan
# row without glslc. Its whisper-cli (same source and CMake folder) is the row's yardstick.
shipped=(src/web/dist "$builds"/build.json "$builds"/cpu-features.node "$builds"/x86-64-v*.node)
if [ -f "$builds/vulkan.node" ]; then
  shipped+=("$builds/vulkan.node" "$builds/vulkan.json")
  [ -x "$builds/vulkan-cmake/bin/whisper-cli" ] && shipped+=("$builds/vulkan-cmake/bin/whisper-cli")
fi
tar -cf - "${shipped[@]}" | xz -T0 -9 >"$kit/builds.tar.xz"
loader=$(ldconfig -p | awk '/libvulkan\.so\.1 .*x86-64/ { print $NF; exit }')
[ -n "$loader" ] && cp -L "$loader" "$kit/lib/libvulkan.so.1"

size() { du -cb "$@" | tail -1 | cut -f1; }
kit_bytes=$(size "$kit")
tree_bytes=$(git ls-files -z | xargs -0 du -cb | awk '/\ttotal$/ { sum += $1 } END { print sum }')
echo "kit.sh: packed in $(($(date +%s) - started)) s: $((kit_bytes / 1048576)) MiB, with the working tree $(((kit_bytes + tree_bytes) / 1048576)) MiB of 64"
((kit_bytes + tree_bytes < 64 * 1048576)) || {
  echo "kit.sh: over the 64 MiB a device call carries" >&2
  exit 1
}

[ "${KIT_CHECK:-1}" = 0 ] && exit 0
# The check: a clone of this commit, the kit and nothing else, with a PATH that has neither node nor
# Bun. run.sh unpacks it, skips the CUDA build (no toolkit is assumed here) and times the CPU build on
# the smallest model, which exercises every import and the CPU builds' load.
check=$(mktemp -d /tmp/svc-kit-check.XXXXXX)
trap 'rm -rf "$check"' EXIT
git clone -q "$root" "$check/svc"
if ! git diff --quiet HEAD -- scripts; then
  # Uncommitted changes to the scripts are what is being tried.
  git diff HEAD -- scripts | git -C "$check/svc" apply
fi
mkdir -p "$check/svc/build" "$check/bin"
cp -r "$kit" "$check/svc/build/"
for tool in bash sh env tar xz awk sed grep cat mkdir rm cp ls readlink dirname basename date nproc uname sort head tail tee chmod ldconfig timeout lscpu; do
  found=$(command -v "$tool" || true)
  [ -n "$found" ] && ln -s "$found" "$check/bin/$tool"
done
(cd "$check/svc" && env -i HOME="$check" PATH="$check/bin" OUT="$check/out" BUILDS=cpu BENCH_SHAPE=tiny.en BENCH_RUNS=1 \
  bash scripts/bench/gpu/run.sh svc)
grep -q "^CPU build" "$check/out/devices.txt" || {
  echo "kit.sh: the check printed no CPU row" >&2
  exit 1
}
echo "kit.sh: checked: svc ran from the kit alone"
