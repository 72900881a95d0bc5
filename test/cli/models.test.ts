import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { megabytes } from "../../src/cli/progress.ts";
import { ggmlLikeFile, sha256Hex, whisperModelFile } from "../helpers/ggml-fixture.ts";
import { type ModelMirror, startModelMirror } from "../helpers/model-mirror.ts";

const root = resolve(import.meta.dir, "../..");
const custom = whisperModelFile(5, 12);

let dir: string;
let modelsDir: string;
let mirror: ModelMirror;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-models-cli-"));
  modelsDir = join(dir, "models");
  mirror = startModelMirror({ "custom.bin": custom, "ggml-tiny.en-q5_1.bin": ggmlLikeFile(1000) });
});

afterEach(() => {
  mirror.stop();
  rmSync(dir, { recursive: true, force: true });
});

function spawnSvc(args: string[]) {
  return Bun.spawn([process.execPath, "src/main.ts", "models", ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", SVC_DB_PATH: join(dir, "svc.db"), SVC_MODEL_BASE_URL: mirror.url },
    stdout: "pipe",
    stderr: "pipe",
  });
}

async function svc(...args: string[]) {
  const proc = spawnSvc(args);
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

const pullCustom = () =>
  svc("pull", "--url", `${mirror.url}/custom.bin`, "--sha256", sha256Hex(custom), "nl-tuned");

describe("svc models pull", () => {
  test("downloads a custom model by URL and SHA-256 with a progress line per 10 %", async () => {
    mirror.pace = { chunkBytes: 64 * 1024, delayMs: 2 };
    const { code, stdout, stderr } = await pullCustom();
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines.filter((line) => /^nl-tuned: \d+% \(/.test(line)).length).toBeGreaterThanOrEqual(5);
    expect(lines.at(-1)).toContain(
      `installed nl-tuned (${megabytes(custom.length)}, SHA-256 verified) → ${join(modelsDir, "ggml-nl-tuned.bin")}`,
    );
    expect(sha256Hex(readFileSync(join(modelsDir, "ggml-nl-tuned.bin")))).toBe(sha256Hex(custom));
    expect(readdirSync(modelsDir)).toEqual(["ggml-nl-tuned.bin"]);
  });

  test("downloads presets from SVC_MODEL_BASE_URL and refuses a file that is not the pinned one", async () => {
    const { code, stderr } = await svc("pull", "tiny.en-q5_1");
    expect(code).toBe(1);
    expect(stderr).toContain(
      `${mirror.url}/ggml-tiny.en-q5_1.bin offers 1000 bytes, not the 32166155 expected`,
    );
    expect(mirror.requests.map((r) => r.path)).toEqual(["/models/ggml-tiny.en-q5_1.bin"]);
    expect(readdirSync(modelsDir)).toEqual([]);
  });

  test("resumes after Ctrl-C when the same command runs again", async () => {
    mirror.pace = { chunkBytes: 64 * 1024, delayMs: 40 };
    const proc = spawnSvc([
      "pull",
      "--url",
      `${mirror.url}/custom.bin`,
      "--sha256",
      sha256Hex(custom),
      "nl-tuned",
    ]);
    const reader = proc.stdout.getReader();
    let seen = "";
    while (!/nl-tuned: \d+%/.test(seen)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`pull ended before any progress: ${seen}`);
      seen += new TextDecoder().decode(value);
    }
    proc.kill("SIGINT");
    expect(await proc.exited).toBe(130);
    expect(await new Response(proc.stderr).text()).toContain("interrupted");
    const partial = join(modelsDir, "ggml-nl-tuned.bin.partial");
    const kept = readFileSync(partial).length;
    expect(kept).toBeGreaterThan(0);
    expect(existsSync(join(modelsDir, "ggml-nl-tuned.bin.lock"))).toBe(false);

    mirror.pace = null;
    const again = await pullCustom();
    expect(again.code).toBe(0);
    expect(mirror.requests.at(-1)).toMatchObject({ range: `bytes=${kept}-`, status: 206 });
    expect(sha256Hex(readFileSync(join(modelsDir, "ggml-nl-tuned.bin")))).toBe(sha256Hex(custom));
  });

  test("an installed model is not downloaded again", async () => {
    await pullCustom();
    const again = await pullCustom();
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("nl-tuned is already installed");
    expect(mirror.requests).toHaveLength(1);
  });

  test("without --sha256 it warns that only the size and header are checked", async () => {
    const { code, stderr, stdout } = await svc("pull", "--url", `${mirror.url}/custom.bin`, "plain");
    expect(code).toBe(0);
    expect(stderr).toContain("no --sha256 given");
    expect(stdout).toContain("every tensor checked");
  });

  test.each([
    [["pull"], "pull takes one model name"],
    [["pull", "whisper-huge"], '"whisper-huge" is not a preset'],
    [["pull", "base.en", "--sha256", "ab"], "base.en is a preset"],
    [["frobnicate"], "usage: svc models"],
  ])("svc models %j is a usage error (exit 2)", async (args, message) => {
    const { code, stderr } = await svc(...args);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });
});

describe("svc models list, import and rm", () => {
  test("list shows the presets, the default, imported models and resumable downloads", async () => {
    await pullCustom();
    writeFileSync(join(modelsDir, "ggml-small.en.bin.partial"), new Uint8Array(48_761_421));
    const { code, stdout } = await svc("list");
    expect(code).toBe(0);
    expect(stdout).toMatch(/^MODEL\s+SIZE\s+STATE\s+DESCRIPTION/);
    expect(stdout).toMatch(/base\.en \(default\)\s+148\.0 MB\s+-/);
    expect(stdout).toMatch(/small\.en\s+487\.6 MB\s+partial 10%/);
    expect(stdout).toMatch(
      new RegExp(`nl-tuned\\s+${megabytes(custom.length)}\\s+installed\\s+custom model`),
    );
    expect(stdout).toContain(`models directory: ${modelsDir}`);
  });

  test("import copies a valid model in and refuses a file that is not one", async () => {
    const good = join(dir, "ggml-de.bin");
    const model = whisperModelFile(6);
    writeFileSync(good, model);
    const imported = await svc("import", good);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain(`imported de (${megabytes(model.length)}, every tensor checked)`);
    const bad = join(dir, "notes.bin");
    writeFileSync(bad, "these are not weights".repeat(10));
    const refused = await svc("import", bad, "--name", "notes");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("is not a usable whisper model");
    expect(readdirSync(modelsDir)).toEqual(["ggml-de.bin"]);
  });

  test("run as root, import gives the models folder to the data folder's owner, and says so", async () => {
    // The tests run as root (as `sudo svc models` or `docker exec` would); svc's own user owns the data.
    expect(process.getuid?.()).toBe(0);
    chownSync(dir, 10001, 10001);
    const good = join(dir, "ggml-de.bin");
    writeFileSync(good, whisperModelFile(6));
    const imported = await svc("import", good);
    expect(imported.code).toBe(0);
    expect(imported.stderr).toContain(`gave ${modelsDir} to uid 10001:10001`);
    expect(statSync(modelsDir).uid).toBe(10001);
    expect(statSync(join(modelsDir, "ggml-de.bin")).uid).toBe(10001);
    expect(statSync(modelsDir).mode & 0o777).toBe(0o700);
  });

  test("import refuses a file whose header is whisper's and whose tensors are not", async () => {
    // The server refuses to load such a file, so installing it would fail every dictation.
    const broken = join(dir, "ggml-broken.bin");
    writeFileSync(broken, ggmlLikeFile(200_000));
    const refused = await svc("import", broken);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("is not a usable whisper model");
    expect(existsSync(join(modelsDir, "ggml-broken.bin"))).toBe(false);
  });

  test("rm deletes a model and says so when there is none", async () => {
    await pullCustom();
    const removed = await svc("rm", "nl-tuned");
    expect(removed).toMatchObject({ code: 0, stdout: "removed nl-tuned\n" });
    expect(readdirSync(modelsDir)).toEqual([]);
    const missing = await svc("rm", "nl-tuned");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('model "nl-tuned" is not installed');
  });

  test("--help explains the subcommands", async () => {
    const { code, stdout } = await svc("--help");
    expect(code).toBe(0);
    expect(stdout).toContain("svc models pull NAME");
    expect(stdout).toContain("SVC_MODEL_BASE_URL");
  });
});
