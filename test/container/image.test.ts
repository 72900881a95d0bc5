import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ensureBaseImages } from "../../scripts/base-images.ts";
import { freePort } from "../helpers/ports.ts";
import { TESTDATA } from "../helpers/sphinx-testdata.ts";
import { syntheticModel } from "../helpers/synthetic-model.ts";

// The image as docs/install.md builds and runs it: `podman build --format docker .` from this checkout,
// then started, checked, re-created and run read-only as people run containers. Where no registry is
// reachable (this project's CI), the base images the Dockerfile names are made from Debian's packages.
const repo = resolve(import.meta.dir, "../..");
const image = "localhost/svc:test-image";
const volume = "svc-test-data";
const work = mkdtempSync(join(tmpdir(), "svc-image-"));
const started: string[] = [];

function podman(args: string[], options: { allowFail?: boolean } = {}) {
  const result = Bun.spawnSync(["podman", ...args], { cwd: repo, stdout: "pipe", stderr: "pipe" });
  const out = { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
  if (out.code !== 0 && !options.allowFail) {
    throw new Error(`podman ${args.join(" ")} failed (${out.code}):\n${out.stderr.slice(-3000)}`);
  }
  return out;
}

/**
 * A proxy that re-signs TLS (this project's CI has one): the build's npm trusts what this machine
 * trusts, its NODE_EXTRA_CA_CERTS or else its system CA bundle.
 */
function proxyArgs(): string[] {
  const system = "/etc/ssl/certs/ca-certificates.crt";
  const bundle = process.env.NODE_EXTRA_CA_CERTS ?? (existsSync(system) ? system : undefined);
  if (!bundle) return [];
  return ["-v", `${bundle}:/run/proxy-ca.crt:ro`, "--build-arg", "NODE_EXTRA_CA_CERTS=/run/proxy-ca.crt"];
}

interface Running {
  name: string;
  url: string;
}

/** `podman run -d` with the volume at /data, published on a free loopback port; waits for health. */
async function run(name: string, extra: string[] = []): Promise<Running> {
  const port = freePort();
  podman([
    "run",
    "-d",
    "--name",
    name,
    "-p",
    `127.0.0.1:${port}:4649`,
    "-v",
    `${volume}:/data`,
    ...extra,
    image,
  ]);
  started.push(name);
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 150; attempt++) {
    const ok = await fetch(`${url}/api/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return { name, url };
    await Bun.sleep(200);
  }
  throw new Error(`${name} did not become healthy:\n${podman(["logs", name], { allowFail: true }).stderr}`);
}

function remove(name: string): void {
  podman(["rm", "-f", "-t", "5", name], { allowFail: true });
}

async function put(server: Running, key: string, value: unknown): Promise<void> {
  const response = await fetch(`${server.url}/api/settings/${key}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ value }),
  });
  expect(response.status).toBe(200);
}

async function transcribe(server: Running) {
  const response = await fetch(`${server.url}/api/transcribe`, {
    method: "POST",
    headers: { "content-type": "audio/pcm;rate=16000;channels=1" },
    body: Bun.file(`${TESTDATA}/goforward.raw`),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

beforeAll(() => {
  ensureBaseImages("amd64");
  const commit = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: repo })
    .stdout.toString()
    .trim();
  podman([
    "build",
    "--format",
    "docker",
    "--network=host",
    "--pull=never",
    ...proxyArgs(),
    "--build-arg",
    `SVC_COMMIT=${commit}`,
    // The Vulkan build adds ten minutes or more on two cores; the host's own tests run it
    // (test/dictation/engines/whisper/vulkan.test.ts).
    "--build-arg",
    "SVC_WHISPER_GPU=off",
    "-t",
    image,
    ".",
  ]);
  podman(["volume", "rm", "-f", volume], { allowFail: true });
}, 1_200_000);

afterAll(() => {
  for (const name of started) remove(name);
  podman(["volume", "rm", "-f", volume], { allowFail: true });
  podman(["rmi", "-f", image], { allowFail: true });
  rmSync(work, { recursive: true, force: true });
});

describe("the container image", () => {
  test("is slim and says how it runs: non-root, /data, its port and a health check", () => {
    const [config] = JSON.parse(podman(["image", "inspect", image]).stdout) as {
      Size: number;
      // Podman keeps the health check beside the config (kept only with --format docker).
      Healthcheck?: { Test: string[] };
      Config: {
        User: string;
        Volumes: Record<string, unknown>;
        ExposedPorts: Record<string, unknown>;
        Env: string[];
      };
    }[];
    const mib = Math.round((config?.Size ?? 0) / 2 ** 20);
    console.log(`image size: ${mib} MiB`);
    expect(mib).toBeLessThan(320);
    expect(config?.Config.User).toBe("svc");
    expect(Object.keys(config?.Config.Volumes ?? {})).toEqual(["/data"]);
    expect(Object.keys(config?.Config.ExposedPorts ?? {})).toEqual(["4649/tcp"]);
    expect(config?.Healthcheck?.Test).toEqual(["CMD", "/usr/local/bin/svc", "healthcheck"]);
    expect(config?.Config.Env).toContain("SVC_DB_PATH=/data/svc.db");
    // NVIDIA's container toolkit mounts its Vulkan driver (the ICD and libnvidia-gl) into a container
    // that asks for graphics; without it `--gpus all` gives CUDA's libraries alone, which the Vulkan
    // build cannot use.
    const capabilities = config?.Config.Env.find((entry) => entry.startsWith("NVIDIA_DRIVER_CAPABILITIES="));
    expect(capabilities?.split("=")[1]?.split(",").sort()).toEqual(["compute", "graphics", "utility"]);
  });

  test("starts as uid 10001, passes its health check, and does not log passing checks", async () => {
    const server = await run("svc-test-a");
    expect(podman(["exec", server.name, "id", "-u"]).stdout.trim()).toBe("10001");
    expect(podman(["exec", server.name, "id", "-g"]).stdout.trim()).toBe("10001");
    expect(podman(["exec", server.name, "stat", "-c", "%a %U", "/data"]).stdout.trim()).toBe("700 svc");
    expect(podman(["healthcheck", "run", server.name]).code).toBe(0);
    const version = podman(["exec", server.name, "svc", "version"]).stdout;
    expect(version).toMatch(/^svc \d+\.\d+\.\d+ \(commit [0-9a-f]{12}/);
    expect(version).toContain("whisper.cpp: x86-64-v");
    const logs = podman(["logs", server.name]).stdout;
    expect(logs).toContain('"msg":"svc listening"');
    expect(logs).not.toContain('"path":"/api/health"');
  }, 60_000);

  test("dictates offline: sphinx is in the image", async () => {
    const server = { name: "svc-test-a", url: await urlOf("svc-test-a") };
    await put(server, "stt_engine", "sphinx");
    const { status, body } = await transcribe(server);
    expect(status).toBe(200);
    expect(body).toMatchObject({ engine: "sphinx" });
    expect(String(body.text).toLowerCase()).toContain("go forward ten meters");
  }, 60_000);

  test("an air-gapped whisper model: podman cp, then svc models import", async () => {
    const server = { name: "svc-test-a", url: await urlOf("svc-test-a") };
    podman(["cp", syntheticModel("micro"), `${server.name}:/tmp/micro.bin`]);
    const imported = podman([
      "exec",
      server.name,
      "svc",
      "models",
      "import",
      "/tmp/micro.bin",
      "--name",
      "micro",
    ]);
    expect(imported.stdout + imported.stderr).toContain("micro");
    await put(server, "stt_engine", "whisper");
    await put(server, "stt_model", "micro");
    const { status, body } = await transcribe(server);
    expect(status).toBe(200);
    expect(body).toMatchObject({ engine: "whisper", model: "micro" });
  }, 60_000);

  test("keeps its data when the container is re-created on the same volume", async () => {
    remove("svc-test-a");
    const server = await run("svc-test-b");
    const history = (await (await fetch(`${server.url}/api/history`)).json()) as { total: number };
    expect(history.total).toBe(2);
    const model = (await (await fetch(`${server.url}/api/settings/stt_model`)).json()) as { value: string };
    expect(model.value).toBe("micro");
    remove("svc-test-b");
  }, 60_000);

  test("runs --read-only with a tmpfs for /tmp, where whisper.cpp is unpacked", async () => {
    const server = await run("svc-test-ro", ["--read-only", "--tmpfs", "/tmp:rw,exec,size=64m"]);
    const { status, body } = await transcribe(server);
    expect(status).toBe(200);
    expect(body).toMatchObject({ engine: "whisper" });
    remove("svc-test-ro");
  }, 60_000);

  test("with a noexec /tmp, whisper answers engine_unavailable and says why", async () => {
    const server = await run("svc-test-noexec", ["--read-only", "--tmpfs", "/tmp:rw,noexec,size=64m"]);
    const { status, body } = await transcribe(server);
    expect(status).toBe(503);
    const error = body.error as { code: string; details: { hint: string } };
    expect(error.code).toBe("engine_unavailable");
    expect(error.details.hint).toContain("noexec");
    remove("svc-test-noexec");
  }, 60_000);

  test("a bind mount svc cannot write: it exits and names the uid and the chown that fixes it", () => {
    const folder = join(work, "bind");
    Bun.spawnSync(["mkdir", "-p", folder]);
    chmodSync(folder, 0o755);
    const result = podman(["run", "--rm", "-v", `${folder}:/data`, image], { allowFail: true });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("svc runs as uid 10001 and may not write /data");
    expect(result.stderr).toContain("sudo chown -R 10001:10001");
    // The fix the message names, done on the host, is enough.
    Bun.spawnSync(["chown", "-R", "10001:10001", folder]);
    podman(["run", "-d", "--name", "svc-test-bind", "-v", `${folder}:/data`, image]);
    started.push("svc-test-bind");
    let healthy = false;
    for (let attempt = 0; attempt < 50 && !healthy; attempt++) {
      healthy = podman(["exec", "svc-test-bind", "svc", "healthcheck"], { allowFail: true }).code === 0;
      if (!healthy) Bun.sleepSync(200);
    }
    expect(healthy).toBe(true);
  }, 60_000);
});

/** The published address of a running container. */
async function urlOf(name: string): Promise<string> {
  const port = podman(["port", name, "4649"]).stdout.trim().split(":").at(-1);
  return `http://127.0.0.1:${port}`;
}
