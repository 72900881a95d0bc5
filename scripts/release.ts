// `bun run release`: what people download for one svc version, in dist/release/:
//
//   svc-<version>-linux-x64.tar.gz     svc-<version>-linux-arm64.tar.gz
//   svc-<version>-darwin-arm64.tar.gz  svc-<version>-windows-x64.zip
//   svc-<version>-image.oci.tar        one multi-arch image (linux/amd64, linux/arm64)
//   SHA256SUMS
// and with --cuda: svc-<version>-linux-x64-cuda.tar.gz and svc-<version>-image-cuda.oci.tar.
//
// Linux binaries embed whisper.cpp compiled in Debian 11 (glibc 2.31), so they run on Debian 11,
// Ubuntu 20.04 and everything newer; they also embed the Vulkan build, made in Debian 12 (it loads
// where glibc is 2.36 or newer, else svc says why and stays on the CPU): the release machine's own
// platform's, and arm64's cross-compiled from x86-64. Then each download is tried as a person would:
// the sums verify, the x86-64 binary transcribes on a CPU without AVX (qemu) and on Debian 11's
// glibc, the arm64 one under qemu (and loads its Vulkan build there, listing Mesa's lavapipe), and
// the image from the archive answers a sphinx dictation.
//
// Needs root on Debian or Ubuntu with debootstrap, podman, qemu-user-static and zip (the same
// packages the tests install). Options: --platforms linux-x64,… (a subset), --no-image, --out DIR,
// --cuda (also whisper.cpp with CUDA, made in a Debian 12 root with Debian's non-free CUDA toolkit:
// its download and the linux/amd64 image with it; hours on two cores, see SVC_CUDA_ARCHITECTURES).
// .github/workflows/release.yml runs this on a tag and uploads dist/release/.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import pkg from "../package.json" with { type: "json" };
import { dictateWithWhisper } from "../test/helpers/binary.ts";
import { ensureBaseImages } from "./base-images.ts";
import { buildConsole } from "./build-console.ts";
import { commitId, compileArgs, isPlatform, type Platform, platforms } from "./compile.ts";
import { buildGpuAddons, buildWhisperAddons, hostPlatform } from "./whisper-addon.mjs";

const repo = resolve(import.meta.dir, "..");
const MIRROR = "http://deb.debian.org/debian";
/** Debian 11: the oldest glibc (2.31) a release's whisper.cpp is built against (Ubuntu 20.04 has 2.31 too). */
const OLD_DEBIAN = "bullseye";
/** Debian 12: where the Vulkan build of whisper.cpp is made (see gpuDebianRoot). */
const GPU_DEBIAN = "bookworm";

function run(command: string[], options: { cwd?: string } = {}): string {
  const result = Bun.spawnSync(command, { cwd: options.cwd ?? repo, stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) {
    throw new Error(
      `${command.join(" ")} failed (${result.exitCode}):\n${result.stderr.toString().slice(-4000)}`,
    );
  }
  return result.stdout.toString();
}

export const archiveName = (platform: Platform) =>
  `svc-${pkg.version}-${platform}${platform.startsWith("windows") ? ".zip" : ".tar.gz"}`;

/**
 * A Debian `suite` root with `packages`, made once per machine with debootstrap; `marker`, a file one
 * of the packages installs, says a root is complete.
 */
function debianRoot(
  suite: string,
  packages: string[],
  marker: string,
  what: string,
  { name = suite, components = "main" }: { name?: string; components?: string } = {},
): string {
  const root = join(tmpdir(), `svc-release-${name}`);
  if (existsSync(join(root, marker))) return root;
  rmSync(root, { recursive: true, force: true });
  console.log(`release: debootstrap ${suite} with ${what} (once per machine)`);
  run([
    "debootstrap",
    "--variant=minbase",
    `--components=${components}`,
    `--include=${packages.join(",")}`,
    suite,
    root,
    MIRROR,
  ]);
  return root;
}

/**
 * A Debian 11 root with its compilers (and the arm64 cross compiler), in which whisper.cpp is built
 * so the binaries need no newer glibc than 2.31.
 */
const oldDebianRoot = () =>
  debianRoot(
    OLD_DEBIAN,
    ["build-essential", "g++-aarch64-linux-gnu", "libc6-dev-arm64-cross"],
    "usr/bin/aarch64-linux-gnu-g++",
    "its compilers",
  );

/**
 * A Debian 12 root with CMake, glslc and the Vulkan and SPIR-V headers, in which the Vulkan build is
 * made: Debian 11's CMake (3.18) and Vulkan headers are too old for it. That build then needs glibc
 * 2.36 (Debian 12, Ubuntu 22.10); on an older system it does not load and svc says so and runs
 * whisper on the CPU builds, which need 2.31.
 */
const gpuDebianRoot = () =>
  debianRoot(
    GPU_DEBIAN,
    ["build-essential", "cmake", "glslc", "libvulkan-dev", "spirv-headers"],
    "usr/bin/glslc",
    "CMake and the Vulkan headers",
  );

/** arm64 Mesa's lavapipe driver in the Debian 12 root: addArm64Vulkan installs it, so it marks that done. */
const ARM64_LAVAPIPE = "usr/share/vulkan/icd.d/lvp_icd.aarch64.json";

/**
 * What arm64's Vulkan build needs in the Debian 12 root, through Debian's multiarch: the cross
 * compiler and arm64's Vulkan loader to link with, and for the check (check()), arm64's Mesa with
 * lavapipe, which the arm64 binary finds under qemu with the root as its library prefix.
 */
function addArm64Vulkan(root: string): void {
  if (existsSync(join(root, ARM64_LAVAPIPE))) return;
  console.log("release: arm64's compiler, Vulkan loader and Mesa in the Debian 12 root (once per machine)");
  const inRoot = (...args: string[]) =>
    run(["chroot", root, "env", "DEBIAN_FRONTEND=noninteractive", ...args]);
  inRoot("dpkg", "--add-architecture", "arm64");
  inRoot("apt-get", "-qq", "update");
  inRoot(
    "apt-get",
    "-qq",
    "install",
    "-y",
    "--no-install-recommends",
    "g++-aarch64-linux-gnu",
    "libvulkan-dev:arm64",
    "mesa-vulkan-drivers:arm64",
  );
}

/** Whether this release cross-compiles arm64's Vulkan build: arm64 asked for, on x86-64, GPU builds on. */
const crossBuildsArm64Vulkan = (wanted: Platform[]) =>
  wanted.includes("linux-arm64") && hostPlatform() === "linux-x64" && process.env.SVC_WHISPER_GPU !== "off";

/**
 * A Debian 12 root with Debian's CUDA toolkit (11.8, from non-free; its nvcc wants g++ 11), in which
 * `--cuda` makes the CUDA build. The toolkit brings NVIDIA's driver library too, with no GPU here:
 * the check runs the build against it and expects "no CUDA device".
 */
const cudaDebianRoot = () =>
  debianRoot(
    GPU_DEBIAN,
    ["build-essential", "cmake", "g++-11", "nvidia-cuda-toolkit"],
    "usr/bin/nvcc",
    "CMake and Debian's CUDA toolkit (about 3 GB)",
    { name: `${GPU_DEBIAN}-cuda`, components: "main,contrib,non-free" },
  );

/** The CUDA runtime libraries cuda.node needs beside it (it finds them through its $ORIGIN). */
const CUDA_LIBRARIES = ["libcudart.so.11.0", "libcublas.so.11", "libcublasLt.so.11"];

export const cudaArchiveName = () => `svc-${pkg.version}-linux-x64-cuda.tar.gz`;

/**
 * The CUDA download: `svc-<version>-linux-x64/svc-cuda/` with cuda.node and the runtime libraries,
 * so that unpacking it where the linux-x64 archive was unpacked puts it beside the binary.
 */
function makeCudaArchive(out: string, cuda: CudaBuild): string {
  return packFolder(out, cudaArchiveName(), "linux-x64", (top) => stageCudaFolder(top, cuda));
}

/** The CUDA build this release made, and the root whose toolkit made it (its runtime libraries). */
interface CudaBuild {
  root: string;
  addon: string;
}

/** `<beside>/svc-cuda/`: cuda.node and the CUDA runtime libraries it loads through its $ORIGIN. */
function stageCudaFolder(beside: string, cuda: CudaBuild): void {
  const folder = join(beside, "svc-cuda");
  mkdirSync(folder);
  cpSync(cuda.addon, join(folder, "cuda.node"));
  for (const library of CUDA_LIBRARIES) {
    cpSync(join(cuda.root, "usr/lib/x86_64-linux-gnu", library), join(folder, library), {
      dereference: true,
    });
  }
}

/** Runs `work` with `env` set, then puts the variables back as they were. */
async function withEnv<T>(env: Record<string, string>, work: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  try {
    return await work();
  } finally {
    for (const [key, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

/** Runs `work` with the checkout visible at the same path inside `root` (and /proc mounted). */
async function withCheckoutIn<T>(root: string, work: () => Promise<T>): Promise<T> {
  const inside = join(root, repo);
  mkdirSync(inside, { recursive: true });
  run(["mount", "--bind", repo, inside]);
  run(["mount", "-t", "proc", "proc", join(root, "proc")]);
  try {
    return await work();
  } finally {
    Bun.spawnSync(["umount", join(root, "proc")]);
    Bun.spawnSync(["umount", inside]);
  }
}

/**
 * `out/svc-<version>-<platform>.tar.gz` (.zip for Windows): a folder with the binary and what a
 * person needs beside it (the README and the docs/ pages it links to, the licence and, for Linux, the
 * systemd unit). Returns its name.
 */
export function makeArchive(platform: Platform, binary: string, out: string): string {
  return packFolder(out, archiveName(platform), platform, (folder) => {
    cpSync(binary, join(folder, platform.startsWith("windows") ? "svc.exe" : "svc"));
    for (const file of ["README.md", "docs", "LICENSE"])
      cpSync(join(repo, file), join(folder, file), { recursive: true });
    if (platform.startsWith("linux-")) cpSync(join(repo, "scripts/svc.service"), join(folder, "svc.service"));
  });
}

/**
 * `out/<name>` (a .zip or a .tar.gz): one top folder `svc-<version>-<platform>`, which `fill` fills.
 * Returns `name`.
 */
function packFolder(out: string, name: string, platform: Platform, fill: (folder: string) => void): string {
  const stageDir = mkdtempSync(join(tmpdir(), "svc-archive-"));
  try {
    const folder = join(stageDir, `svc-${pkg.version}-${platform}`);
    mkdirSync(folder);
    fill(folder);
    const archive = join(out, name);
    if (archive.endsWith(".zip")) run(["zip", "-qr9", archive, basename(folder)], { cwd: stageDir });
    else run(["tar", "-C", stageDir, "-czf", archive, basename(folder)]);
    return name;
  } finally {
    rmSync(stageDir, { recursive: true, force: true });
  }
}

async function buildArchives(
  wanted: Platform[],
  out: string,
  work: string,
  withCuda: boolean,
): Promise<{ binaries: Map<Platform, string>; cuda?: CudaBuild }> {
  const linux = wanted.filter((platform) => platform.startsWith("linux-"));
  const root = oldDebianRoot();
  await withCheckoutIn(root, async () => {
    // Only the CPU builds here: Debian 11's CMake is too old for a GPU build, made below in Debian 12.
    for (const platform of linux) await buildWhisperAddons({ platform, wrap: ["chroot", root], gpu: false });
  });
  // The Vulkan builds: this machine's platform, and arm64's cross-compiled from x86-64 (the shaders
  // are SPIR-V, made by a generator built for this machine). Each must be made: a vulkan.node an
  // earlier build left would otherwise be embedded.
  const host = linux.filter((platform) => platform === hostPlatform());
  const crossArm64 = crossBuildsArm64Vulkan(linux);
  const vulkan: Platform[] = crossArm64 ? [...host, "linux-arm64"] : host;
  if (vulkan.length > 0 && process.env.SVC_WHISPER_GPU !== "off") {
    const gpuRoot = gpuDebianRoot();
    await withCheckoutIn(gpuRoot, async () => {
      if (crossArm64) addArm64Vulkan(gpuRoot);
      for (const platform of vulkan) {
        const built = await withEnv({ SVC_WHISPER_GPU: "vulkan" }, () =>
          buildGpuAddons({ platform, wrap: ["chroot", gpuRoot] }),
        );
        if (!built.vulkan)
          throw new Error(`the Vulkan build for ${platform} was not made (its reason is above)`);
      }
    });
  }
  let cuda: CudaBuild | undefined;
  if (withCuda) {
    if (!host.includes("linux-x64")) throw new Error("--cuda needs linux-x64, built on an x86-64 machine");
    const cudaRoot = cudaDebianRoot();
    const built = await withCheckoutIn(cudaRoot, () =>
      withEnv({ SVC_WHISPER_GPU: "cuda", CUDAHOSTCXX: "g++-11" }, () =>
        buildGpuAddons({ platform: "linux-x64", wrap: ["chroot", cudaRoot] }),
      ),
    );
    // Not whatever cuda.node an earlier build left: only one this build made or confirmed.
    if (!built.cuda) throw new Error("the CUDA build was not made (its reason is printed above)");
    cuda = { root: cudaRoot, addon: built.cuda };
    console.log(`release: ${makeCudaArchive(out, cuda)}`);
  }
  await buildConsole();
  const binaries = new Map<Platform, string>();
  for (const platform of wanted) {
    const binary = join(work, platform, platform.startsWith("windows") ? "svc.exe" : "svc");
    run([process.execPath, ...compileArgs(platform, binary)]);
    binaries.set(platform, binary);
    console.log(`release: ${makeArchive(platform, binary, out)}`);
  }
  return { binaries, cuda };
}

/** One image per architecture from the release's own binaries, joined into one multi-arch OCI archive. */
function buildImage(binaries: Map<Platform, string>, out: string, work: string): string {
  const name = `localhost/svc-release:${pkg.version}`;
  Bun.spawnSync(["podman", "manifest", "rm", name], { stderr: "ignore", stdout: "ignore" });
  run(["podman", "manifest", "create", name]);
  for (const [arch, platform] of [
    ["amd64", "linux-x64"],
    ["arm64", "linux-arm64"],
  ] as const) {
    const binary = binaries.get(platform);
    if (!binary) continue;
    const { runtime } = ensureBaseImages(arch, { build: false });
    const context = join(work, `image-${arch}`);
    mkdirSync(join(context, "out"), { recursive: true });
    cpSync(binary, join(context, "out/svc"));
    console.log(`release: image for linux/${arch}`);
    run([
      "podman",
      "build",
      "--format=docker",
      `--platform=linux/${arch}`,
      "--network=host",
      "--pull=never",
      `--build-context=binary=${context}`,
      `--build-arg=SVC_RUNTIME_BASE=${runtime}`,
      "-t",
      `${name}-${arch}`,
      ".",
    ]);
    run(["podman", "manifest", "add", name, `containers-storage:${name}-${arch}`]);
  }
  const archive = join(out, imageArchiveName());
  rmSync(archive, { force: true });
  run(["podman", "manifest", "push", "--all", name, `oci-archive:${archive}:svc:${pkg.version}`]);
  return archive;
}

const imageArchiveName = (variant = "") => `svc-${pkg.version}-image${variant}.oci.tar`;

/**
 * `svc-<version>-image-cuda.oci.tar`, tagged `svc:<version>-cuda`: the linux/amd64 image with
 * svc-cuda/ beside its binary, for NVIDIA cards through the container toolkit (its driver comes in
 * with --gpus all; the image already asks for compute). A layer over the image buildImage made, so
 * the two differ in that folder alone.
 */
function buildCudaImage(cuda: CudaBuild, out: string, work: string): string {
  const base = `localhost/svc-release:${pkg.version}-amd64`;
  const context = join(work, "image-cuda");
  mkdirSync(context, { recursive: true });
  stageCudaFolder(context, cuda);
  writeFileSync(join(context, "Containerfile"), `FROM ${base}\nCOPY svc-cuda /usr/local/bin/svc-cuda\n`);
  console.log("release: image for linux/amd64 with CUDA");
  const name = `localhost/svc-release:${pkg.version}-cuda`;
  run([
    "podman",
    "build",
    "--format=docker",
    "--platform=linux/amd64",
    "--pull=never",
    "-t",
    name,
    "-f",
    join(context, "Containerfile"),
    context,
  ]);
  const archive = join(out, imageArchiveName("-cuda"));
  rmSync(archive, { force: true });
  run(["podman", "push", name, `oci-archive:${archive}:svc:${pkg.version}-cuda`]);
  run(["podman", "rmi", "-f", name]);
  return archive;
}

/** `out/SHA256SUMS` for `files`, in the format `sha256sum -c` reads. */
export function writeSums(out: string, files: string[]): void {
  const lines = files.map((file) => {
    const hash = new Bun.CryptoHasher("sha256").update(readFileSync(join(out, file))).digest("hex");
    return `${hash}  ${file}\n`;
  });
  writeFileSync(join(out, "SHA256SUMS"), lines.join(""));
}

/** Each download tried as a person would, before anything is published. */
async function check(out: string, wanted: Platform[], images: string[], work: string): Promise<void> {
  console.log(run(["sha256sum", "-c", "SHA256SUMS"], { cwd: out }).trim());
  const unpacked = join(work, "unpacked");
  mkdirSync(unpacked, { recursive: true });
  const binaryOf = (platform: Platform) => {
    run(["tar", "-C", unpacked, "-xzf", join(out, archiveName(platform))]);
    return join(unpacked, `svc-${pkg.version}-${platform}`, "svc");
  };
  const tries: { platform: Platform; label: string; emulator?: string[]; root?: string }[] = [
    {
      platform: "linux-x64",
      label: "a CPU without AVX (qemu Nehalem)",
      emulator: ["qemu-x86_64-static", "-cpu", "Nehalem"],
    },
    { platform: "linux-x64", label: `Debian 11's glibc 2.31`, root: oldDebianRoot() },
    {
      platform: "linux-arm64",
      label: "arm64 (qemu Cortex-A72)",
      emulator: ["qemu-aarch64-static", "-L", "/usr/aarch64-linux-gnu", "-cpu", "cortex-a72"],
    },
  ];
  for (const attempt of tries.filter((item) => wanted.includes(item.platform))) {
    const { root } = attempt;
    // In the old root the binary runs through chroot; its files sit in the checkout, which is mounted
    // there at the same path.
    const dir = mkdtempSync(root ? join(repo, "build", "release-try-") : join(work, "try-"));
    const binary = join(dir, "svc");
    cpSync(binaryOf(attempt.platform), binary);
    const dictate = (emulator?: string[]) => dictateWithWhisper({ dir, binary, emulator });
    try {
      const result = root
        ? await withCheckoutIn(root, () => dictate(["chroot", root]))
        : await dictate(attempt.emulator);
      if (result.status !== 200 || result.body.engine !== "whisper") {
        throw new Error(
          `${archiveName(attempt.platform)} on ${attempt.label}: ${JSON.stringify(result.body)}`,
        );
      }
      console.log(
        `release: ${archiveName(attempt.platform)} transcribes on ${attempt.label} (${result.build})`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (crossBuildsArm64Vulkan(wanted)) checkArm64Vulkan(binaryOf("linux-arm64"));
  if (existsSync(join(out, cudaArchiveName()))) await checkCuda(out, unpacked);
  for (const image of images) await checkImage(image);
}

/**
 * arm64's Vulkan build, cross-compiled, loads on arm64: the binary under qemu, with the Debian 12
 * root as its library prefix (arm64's Vulkan loader and Mesa's lavapipe are there), names lavapipe
 * among its devices, and auto passes over it as a CPU-type device. (A dictation on that lavapipe
 * cannot be tried: Mesa 22.3's shader compiler for arm64 aborts on ggml's shaders under qemu, for
 * whisper.cpp's own whisper-cli as for svc.) The driver is named by its file: the loader cannot read
 * the folder of drivers through qemu's prefix.
 */
function checkArm64Vulkan(binary: string): void {
  const root = gpuDebianRoot();
  const line = whisperLine(
    run([
      "env",
      `QEMU_LD_PREFIX=${root}`,
      `VK_DRIVER_FILES=${join(root, ARM64_LAVAPIPE)}`,
      "qemu-aarch64-static",
      "-cpu",
      "cortex-a72",
      binary,
      "version",
    ]),
  );
  if (
    !/^whisper\.cpp: .*Vulkan: no discrete or integrated GPU among the Vulkan devices \(llvmpipe/.test(line)
  ) {
    throw new Error(`${archiveName("linux-arm64")} with arm64's Vulkan loader and lavapipe: ${line}`);
  }
  console.log(`release: ${archiveName("linux-arm64")} loads its Vulkan build under qemu: ${line}`);
}

/**
 * The CUDA download unpacked beside the x86-64 binary loads as far as this machine allows: without
 * NVIDIA's driver svc names it as missing (so every runtime library was found), and in the CUDA
 * root, which has the driver's library but no GPU, the build loads and CUDA lists no device. On a
 * machine with an NVIDIA GPU, svc names the card.
 */
async function checkCuda(out: string, unpacked: string): Promise<void> {
  run(["tar", "-C", unpacked, "-xzf", join(out, cudaArchiveName())]);
  const dir = mkdtempSync(join(repo, "build", "release-try-cuda-"));
  try {
    cpSync(join(unpacked, `svc-${pkg.version}-linux-x64`), dir, { recursive: true });
    const versionLine = (wrap: string[]) =>
      whisperLine(run([...wrap, "env", "SVC_WHISPER_DEVICE=cuda", join(dir, "svc"), "version"]));
    const expect = (label: string, line: string, expected: RegExp) => {
      if (!expected.test(line)) throw new Error(`${cudaArchiveName()} on ${label}: ${line}`);
      console.log(`release: ${cudaArchiveName()} loads on ${label}: ${whyNot(line)}`);
    };
    expect("this machine", versionLine([]), /libcuda\.so\.1\) is not installed| on CUDA \d/);
    const root = cudaDebianRoot();
    expect(
      "a root with NVIDIA's driver library and no GPU",
      await withCheckoutIn(root, async () => versionLine(["chroot", root])),
      /no CUDA device is listed| on CUDA \d/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The image loads from the archive and dictates with the sphinx it carries; the CUDA image's build
 * finds its runtime libraries and names NVIDIA's driver as missing (no --gpus here).
 */
async function checkImage(archive: string): Promise<void> {
  const id = run(["podman", "pull", "--quiet", `oci-archive:${archive}`]).trim();
  let container: string | undefined;
  try {
    if (basename(archive) === imageArchiveName("-cuda")) {
      const line = whisperLine(
        run(["podman", "run", "--rm", "-e", "SVC_WHISPER_DEVICE=cuda", id, "version"]),
      );
      if (!/libcuda\.so\.1\) is not installed/.test(line)) throw new Error(`${basename(archive)}: ${line}`);
      console.log(`release: ${basename(archive)} loads its CUDA build: ${whyNot(line)}`);
    }
    container = run(["podman", "run", "-d", "--rm", "-p", "127.0.0.1::4649", id]).trim();
    const url = `http://${run(["podman", "port", container, "4649"]).trim()}`;
    let healthy = false;
    for (let attempt = 0; attempt < 100 && !healthy; attempt++) {
      healthy = await fetch(`${url}/api/health`).then(
        (answer) => answer.ok,
        () => false,
      );
      if (!healthy) await Bun.sleep(200);
    }
    const json = { "content-type": "application/json" };
    await fetch(`${url}/api/settings/stt_engine`, {
      method: "PUT",
      headers: json,
      body: '{"value":"sphinx"}',
    });
    const answer = await fetch(`${url}/api/transcribe`, {
      method: "POST",
      headers: { "content-type": "audio/pcm;rate=16000;channels=1" },
      body: Bun.file("/usr/share/pocketsphinx/test/data/goforward.raw"),
    });
    const text = String(((await answer.json()) as { text?: unknown }).text).toLowerCase();
    if (!text.includes("go forward"))
      throw new Error(`the image from the archive answered ${answer.status}: ${text}`);
    console.log(`release: ${basename(archive)} transcribes with sphinx`);
  } finally {
    if (container) Bun.spawnSync(["podman", "rm", "-f", container]);
    Bun.spawnSync(["podman", "rmi", "-f", id]);
  }
}

/** The `whisper.cpp:` line of what `svc version` said (all it said, if there is none). */
const whisperLine = (said: string) =>
  said.split("\n").find((text) => text.startsWith("whisper.cpp:")) ?? said;

/** A device line's reason alone, after "… cannot be used: ". */
const whyNot = (line: string) => line.replace(/^.*cannot be used: /, "");

if (import.meta.main) {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      platforms: { type: "string" },
      out: { type: "string" },
      "no-image": { type: "boolean" },
      cuda: { type: "boolean" },
    },
  });
  const wanted = values.platforms ? values.platforms.split(",") : Object.keys(platforms);
  const unknown = wanted.filter((name) => !isPlatform(name));
  if (unknown.length > 0) {
    console.error(
      `unknown platforms: ${unknown.join(", ")}; svc releases ${Object.keys(platforms).join(", ")}`,
    );
    process.exit(2);
  }
  const out = resolve(values.out ?? join(repo, "dist/release"));
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), "svc-release-"));
  try {
    console.log(`release: svc ${pkg.version} (commit ${commitId()}) into ${out}`);
    const chosen = wanted as Platform[];
    const cuda = values.cuda === true;
    const built = await buildArchives(chosen, out, work, cuda);
    const images: string[] = [];
    if (!values["no-image"]) {
      images.push(buildImage(built.binaries, out, work));
      if (built.cuda) images.push(buildCudaImage(built.cuda, out, work));
    }
    writeSums(out, [
      ...chosen.map(archiveName),
      ...(cuda ? [cudaArchiveName()] : []),
      ...images.map((image) => basename(image)),
    ]);
    await check(out, chosen, images, work);
    console.log(`release: done; ${out}/SHA256SUMS lists what to publish`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
