import { copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { TESTDATA } from "./sphinx-testdata.ts";
import { syntheticModel } from "./synthetic-model.ts";

let built: Promise<string> | undefined;

/** Compiles svc once per test run with the real build script and returns the executable's path. */
export function compiledBinary(): Promise<string> {
  built ??= (async () => {
    const outfile = join(mkdtempSync(join(tmpdir(), "svc-bin-")), "svc");
    const proc = Bun.spawn([process.execPath, "scripts/build.ts", "--outfile", outfile], {
      cwd: resolve(import.meta.dir, "../.."),
      stdout: "pipe",
      stderr: "pipe",
    });
    if ((await proc.exited) !== 0) throw new Error(`build failed: ${await new Response(proc.stderr).text()}`);
    return outfile;
  })();
  return built;
}

export interface RunningServer {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  port: number;
  url: string;
  /** Every stdout line so far, parsed (production logs are JSON lines). */
  lines: Record<string, unknown>[];
  stop(signal?: NodeJS.Signals): Promise<number>;
}

/**
 * Starts the binary on a free port (PORT=0) and resolves once it logs that it listens.
 * `fdLimit` runs it under `ulimit -n` (systemd's default soft limit is 1024); `binary` and
 * `emulator` run another build (another platform's) under an emulator such as qemu-user.
 */
export async function startBinary(
  env: Record<string, string>,
  options: { cwd?: string; fdLimit?: number; binary?: string; emulator?: string[]; startMs?: number } = {},
): Promise<RunningServer> {
  const binary = options.binary ?? (await compiledBinary());
  const program = [...(options.emulator ?? []), binary];
  const command =
    options.fdLimit === undefined
      ? program
      : ["bash", "-c", `ulimit -n ${options.fdLimit} && exec "$@"`, "svc", ...program];
  const proc = Bun.spawn(command, {
    env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: "0", ...env },
    cwd: options.cwd ?? mkdtempSync(join(tmpdir(), "svc-cwd-")),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const lines: Record<string, unknown>[] = [];
  const listening = readLines(proc.stdout, lines);
  const url = await Promise.race([
    listening,
    proc.exited.then(async (code) => {
      throw new Error(`svc exited with ${code}: ${await new Response(proc.stderr).text()}`);
    }),
    Bun.sleep(options.startMs ?? 15_000).then(() => {
      throw new Error(`svc did not start within ${(options.startMs ?? 15_000) / 1000} s`);
    }),
  ]);
  const port = Number(new URL(url).port);
  return {
    proc,
    port,
    url: `http://127.0.0.1:${port}`,
    lines,
    async stop(signal = "SIGTERM") {
      proc.kill(signal);
      return await proc.exited;
    },
  };
}

async function readLines(
  stream: ReadableStream<Uint8Array>,
  lines: Record<string, unknown>[],
): Promise<string> {
  let resolveUrl: (url: string) => void = () => {};
  const found = new Promise<string>((resolve) => {
    resolveUrl = resolve;
  });
  (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of stream) {
      buffer += decoder.decode(chunk, { stream: true });
      let newline = buffer.indexOf("\n");
      while (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf("\n");
        try {
          const parsed = JSON.parse(line) as Record<string, unknown>;
          lines.push(parsed);
          if (parsed.msg === "svc listening" && typeof parsed.url === "string") resolveUrl(parsed.url);
        } catch {
          lines.push({ raw: line });
        }
      }
    }
  })();
  return found;
}

/**
 * Starts a binary (by default the one built for this machine; `emulator` runs it under qemu-user,
 * `chroot` in another system's root), transcribes goforward with a synthetic whisper model and
 * stops it. Returns the answer and the whisper.cpp build the server logged. `dir` holds its data.
 */
export async function dictateWithWhisper(options: { dir: string; binary?: string; emulator?: string[] }) {
  const models = join(options.dir, "models");
  mkdirSync(models, { recursive: true });
  copyFileSync(syntheticModel("micro"), join(models, "micro.bin"));
  const data = mkdtempSync(join(options.dir, "data-"));
  const server = await startBinary(
    // The energy detector: Silero on emulated SIMD would take most of a minute and is not what is tried.
    { SVC_DB_PATH: join(data, "svc.db"), SVC_MODELS_DIR: models, SVC_VAD: "energy" },
    { emulator: options.emulator, binary: options.binary, startMs: 60_000 },
  );
  try {
    const put = await fetch(`${server.url}/api/settings/stt_model`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ value: "micro" }),
    });
    if (!put.ok) throw new Error(`PUT stt_model: ${put.status} ${await put.text()}`);
    const answer = await fetch(`${server.url}/api/transcribe`, {
      method: "POST",
      headers: { "content-type": "audio/pcm;rate=16000;channels=1" },
      body: Bun.file(`${TESTDATA}/goforward.raw`),
    });
    const body = (await answer.json()) as Record<string, unknown>;
    const build = server.lines.find((line) => line.msg === "speech model loaded")?.build;
    return { status: answer.status, body, build };
  } finally {
    await server.stop();
  }
}

/** Runs the binary to completion (for CLI commands) and returns its exit code and output. */
export async function runBinary(args: string[], env: Record<string, string>, cwd?: string) {
  const binary = await compiledBinary();
  const proc = Bun.spawn([binary, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    cwd: cwd ?? tmpdir(),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout, stderr] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  return { code, stdout, stderr };
}
