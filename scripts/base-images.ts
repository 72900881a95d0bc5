// The base images svc's Dockerfile names (debian:bookworm-slim, node:20-bookworm), made from Debian's
// packages (debootstrap) and Node.js from the npm registry, laid out as the official images are. For
// machines that reach no image registry, like this project's CI: where an image of that name is present
// already (pulled from Docker Hub, or made here before), it is used as it is.
//
//   bun scripts/base-images.ts [--arch amd64|arm64]     (root, with debootstrap and podman)
//
// arm64 images are made on an x86-64 machine through qemu-user-static's binfmt handler; they are named
// with an -arm64 suffix (localhost/…), since one local name holds one image.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

export type Arch = "amd64" | "arm64";

const NODE_VERSION = "20.20.2";
/** The npm that Node.js 20.20 ships with. */
const NPM_VERSION = "10.8.2";
const MIRROR = "http://deb.debian.org/debian";

export interface BaseImages {
  runtime: string;
  build: string;
}

/** The names the Dockerfile's FROM lines use (amd64), or the local names of the arm64 pair. */
export function baseImageNames(arch: Arch): BaseImages {
  return arch === "amd64"
    ? { runtime: "docker.io/library/debian:bookworm-slim", build: "docker.io/library/node:20-bookworm" }
    : { runtime: "localhost/debian:bookworm-slim-arm64", build: "localhost/node:20-bookworm-arm64" };
}

function run(command: string[], options: { cwd?: string; input?: Blob } = {}): string {
  const result = Bun.spawnSync(command, {
    cwd: options.cwd,
    stdin: options.input ?? "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  if (result.exitCode !== 0) {
    throw new Error(
      `${command.join(" ")} failed (${result.exitCode}):\n${result.stderr.toString().slice(-4000)}`,
    );
  }
  return result.stdout.toString();
}

const imageExists = (name: string) =>
  Bun.spawnSync(["podman", "image", "exists", name], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;

/** Podman on these machines: runc (crun cannot set rlimits here) and the limits a container needs. */
export function configureContainers(): void {
  const path = "/etc/containers/containers.conf";
  const text = Bun.spawnSync(["cat", path], { stderr: "ignore" }).stdout.toString();
  if (text.includes('runtime = "runc"') && text.includes("default_ulimits")) return;
  mkdirSync("/etc/containers", { recursive: true });
  writeFileSync(
    path,
    `${text}\n[containers]\ndefault_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]\n[engine]\nruntime = "runc"\n`,
  );
}

// qemu's own registration of 64-bit little-endian arm ELF files (scripts/qemu-binfmt-conf.sh), as the
// kernel reads it: hex escapes, written as text.
const aarch64Magic = String.raw`\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00`;
const aarch64Mask = String.raw`\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff`;

/**
 * arm64 programs run through qemu-user-static: its binfmt handler must be registered. Written to
 * the kernel directly rather than through Debian's update-binfmts, which lives in binfmt-support, a
 * package a machine with systemd (and qemu-user-static installed without its recommends) lacks.
 * `F`: the interpreter is opened now, so it also runs inside the chroot and the build containers.
 */
export function enableEmulation(arch: Arch, binfmt = "/proc/sys/fs/binfmt_misc"): void {
  if (arch === "amd64" || process.arch === "arm64") return;
  if (!existsSync(`${binfmt}/register`)) run(["mount", "-t", "binfmt_misc", "binfmt_misc", binfmt]);
  const entry = `${binfmt}/qemu-aarch64`;
  if (existsSync(entry)) {
    if (!readFileSync(entry, "utf8").startsWith("enabled")) writeFileSync(entry, "1");
    return;
  }
  const interpreter = "/usr/bin/qemu-aarch64-static";
  if (!existsSync(interpreter))
    throw new Error(`${interpreter} is missing: apt-get install qemu-user-static`);
  writeFileSync(`${binfmt}/register`, `:qemu-aarch64:M::${aarch64Magic}:${aarch64Mask}:${interpreter}:F`);
}

/** debian:bookworm-slim: a minbase debootstrap, trimmed as the official image is. */
function makeRuntimeBase(arch: Arch, name: string, work: string): void {
  const root = join(work, "rootfs");
  console.log(`base images: debootstrap bookworm (${arch}) for ${name}`);
  run(["debootstrap", "--variant=minbase", `--arch=${arch}`, "bookworm", root, MIRROR]);
  writeFileSync(
    join(root, "etc/apt/sources.list"),
    [
      `deb ${MIRROR} bookworm main`,
      `deb ${MIRROR} bookworm-updates main`,
      "deb http://deb.debian.org/debian-security bookworm-security main",
      "",
    ].join("\n"),
  );
  // As the official slim image: no documentation, manual pages or translations, now or from later installs.
  writeFileSync(
    join(root, "etc/dpkg/dpkg.cfg.d/docker"),
    [
      "path-exclude /usr/share/doc/*",
      "path-include /usr/share/doc/*/copyright",
      "path-exclude /usr/share/man/*",
      "path-exclude /usr/share/info/*",
      "path-exclude /usr/share/locale/*",
      "path-include /usr/share/locale/locale.alias",
      "",
    ].join("\n"),
  );
  writeFileSync(
    join(root, "etc/apt/apt.conf.d/docker-clean"),
    'DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/*.bin || true"; };\nBinary::apt::APT::Keep-Downloaded-Packages "false";\n',
  );
  run([
    "sh",
    "-c",
    `cd ${root} && find usr/share/doc -mindepth 2 ! -name copyright ! -type d -delete; ` +
      "rm -rf usr/share/man/* usr/share/info/* var/lib/apt/lists/* var/cache/apt/*.bin var/cache/apt/archives/*.deb " +
      "var/log/*.log var/log/apt/* var/cache/debconf/*-old; find usr/share/locale -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +",
  ]);
  const tarball = join(work, "rootfs.tar");
  run(["tar", "-C", root, "--numeric-owner", "-cf", tarball, "."]);
  run(["podman", "import", "--arch", arch, "--change", 'CMD ["bash"]', tarball, name]);
  rmSync(root, { recursive: true, force: true });
  rmSync(tarball, { force: true });
}

/** node:20-bookworm: build tools on the Debian base, Node.js and npm from the npm registry in /usr/local. */
function makeBuildBase(arch: Arch, names: BaseImages, work: string): void {
  const context = join(work, "node");
  mkdirSync(context, { recursive: true });
  const nodePackage = `node-linux-${arch === "amd64" ? "x64" : "arm64"}@${NODE_VERSION}`;
  console.log(`base images: ${names.build} from ${names.runtime}, ${nodePackage} and npm@${NPM_VERSION}`);
  run(["npm", "pack", nodePackage, `npm@${NPM_VERSION}`, "--silent"], { cwd: context });
  const [nodeTarball, npmTarball] = ["node-linux-", "npm-"].map((prefix) =>
    readdirSync(context).find((file) => file.startsWith(prefix)),
  );
  writeFileSync(
    join(context, "Containerfile"),
    `FROM ${names.runtime}
RUN apt-get update \\
 && apt-get install -y --no-install-recommends ca-certificates curl git g++ make python3 xz-utils \\
 && rm -rf /var/lib/apt/lists/* \\
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
COPY ${nodeTarball} ${npmTarball} /tmp/
RUN mkdir -p /tmp/node /usr/local/lib/node_modules/npm \\
 && tar -xzf /tmp/${nodeTarball} -C /tmp/node --strip-components=1 \\
 && cp -a /tmp/node/bin /tmp/node/include /tmp/node/share /usr/local/ \\
 && tar -xzf /tmp/${npmTarball} -C /usr/local/lib/node_modules/npm --strip-components=1 \\
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && rm -rf /tmp/node /tmp/${nodeTarball} /tmp/${npmTarball} \\
 && node --version && npm --version
ENV NODE_VERSION=${NODE_VERSION}
CMD ["node"]
`,
  );
  run([
    "podman",
    "build",
    "--network=host",
    "--pull=never",
    `--platform=linux/${arch}`,
    "-t",
    names.build,
    context,
  ]);
}

/**
 * Makes whichever of the two images is missing (only the runtime one with `build: false`, as the
 * release needs, whose binaries are compiled outside); returns their names.
 */
export function ensureBaseImages(arch: Arch = "amd64", options: { build?: boolean } = {}): BaseImages {
  configureContainers();
  const names = baseImageNames(arch);
  const wantBuild = options.build ?? true;
  if (imageExists(names.runtime) && (!wantBuild || imageExists(names.build))) return names;
  enableEmulation(arch);
  const work = mkdtempSync(join(tmpdir(), "svc-base-"));
  try {
    if (!imageExists(names.runtime)) makeRuntimeBase(arch, names.runtime, work);
    if (wantBuild && !imageExists(names.build)) makeBuildBase(arch, names, work);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return names;
}

if (import.meta.main) {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { arch: { type: "string" } } });
  const arch = (values.arch ?? (process.arch === "arm64" ? "arm64" : "amd64")) as Arch;
  if (arch !== "amd64" && arch !== "arm64") throw new Error("--arch is amd64 or arm64");
  const names = ensureBaseImages(arch);
  console.log(`${names.runtime}\n${names.build}`);
}
