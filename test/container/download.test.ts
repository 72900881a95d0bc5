import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Server } from "bun";
import pkg from "../../package.json" with { type: "json" };
import { ensureBaseImages } from "../../scripts/base-images.ts";
import { makeArchive, writeSums } from "../../scripts/release.ts";
import { compiledBinary } from "../helpers/binary.ts";
import { freePort } from "../helpers/ports.ts";

// The download lines of the README and of docs/install.md, run as written in a fresh Debian 12
// container (only curl added, to fetch the files from a local server standing in for the release
// page), against a linux-x64 archive made the release's way from this checkout's binary.
const readme = readFileSync(resolve(import.meta.dir, "../../README.md"), "utf8");
const install = readFileSync(resolve(import.meta.dir, "../../docs/install.md"), "utf8");
const files = mkdtempSync(join(tmpdir(), "svc-download-"));
let server: Server<undefined>;
let runtime: string;

/** The shell lines of the first ```sh block that verifies a download in `page`, after `heading`. */
function shLines(page: string, heading?: string): string[] {
  const from = heading === undefined ? 0 : page.indexOf(heading);
  expect(from).toBeGreaterThanOrEqual(0);
  const block = /```sh\n([\s\S]*?)```/g;
  block.lastIndex = from;
  const blocks = [...page.matchAll(block)].filter((match) => (match.index ?? 0) >= from);
  const lines = blocks.find((match) => match[1]?.includes("sha256sum"))?.[1] ?? "";
  return lines.split("\n").filter((line) => line.trim() !== "");
}

beforeAll(async () => {
  runtime = ensureBaseImages("amd64", { build: false }).runtime;
  const archive = makeArchive("linux-x64", await compiledBinary(), files);
  writeSums(files, [archive]);
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => new Response(Bun.file(join(files, new URL(request.url).pathname.slice(1)))),
  });
}, 300_000);

afterAll(async () => {
  await server?.stop(true);
  rmSync(files, { recursive: true, force: true });
});

/**
 * Downloads the archive and SHA256SUMS into a new container's working folder, then runs `lines`:
 * each but the last in order, the last (which starts svc) in the background; returns svc's answer.
 */
async function runInFreshDebian(lines: string[]) {
  const port = freePort();
  const base = `http://127.0.0.1:${server.port}`;
  const archive = `svc-${pkg.version}-linux-x64.tar.gz`;
  const steps = [...lines.slice(0, -1), `(${lines.at(-1)}) > svc.log 2>&1 &`].join("\n");
  const script = `set -e
apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends curl >/dev/null
mkdir -p /root/downloads && cd /root/downloads
curl -fsSLO ${base}/${archive} -fsSLO ${base}/SHA256SUMS
export HOST=127.0.0.1 PORT=${port}
${steps}
for i in $(seq 1 100); do curl -fs http://127.0.0.1:${port}/api/health && exit 0; sleep 0.1; done
cat svc.log; exit 1
`;
  // Asynchronously: this process serves the downloads while the container fetches them.
  const run = Bun.spawn(
    ["podman", "run", "--rm", "--network=host", "--pull=never", runtime, "bash", "-c", script],
    {
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const [code, out, err] = await Promise.all([
    run.exited,
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
  ]);
  return { code, out, err };
}

describe("the documented download lines on a fresh Debian 12", () => {
  test("name this version's files", () => {
    for (const lines of [shLines(readme), shLines(install, "## Downloads")]) {
      expect(lines.join("\n")).toContain(`svc-${pkg.version}-linux-x64.tar.gz`);
    }
  });

  test("the README's lines: verify, unpack and start", async () => {
    const result = await runInFreshDebian(shLines(readme));
    expect(result.out).toContain(`svc-${pkg.version}-linux-x64.tar.gz: OK`);
    expect(result.out).toContain('"status":"ok"');
    expect(result.code).toBe(0);
  }, 120_000);

  test("docs/install.md's Downloads section: verify, unpack and start", async () => {
    const result = await runInFreshDebian(shLines(install, "## Downloads"));
    expect(result.out).toContain(`svc-${pkg.version}-linux-x64.tar.gz: OK`);
    expect(result.out).toContain('"status":"ok"');
    expect(result.code).toBe(0);
  }, 120_000);

  test("a damaged download fails the check", async () => {
    const damaged = readFileSync(join(files, "SHA256SUMS"), "utf8").replace(/^[0-9a-f]/, (c) =>
      c === "0" ? "1" : "0",
    );
    await Bun.write(join(files, "SHA256SUMS"), damaged);
    const result = await runInFreshDebian(shLines(install, "## Downloads"));
    expect(result.code).not.toBe(0);
    expect(result.out + result.err).toContain("FAILED");
    writeSums(files, [`svc-${pkg.version}-linux-x64.tar.gz`]);
  }, 120_000);
});
