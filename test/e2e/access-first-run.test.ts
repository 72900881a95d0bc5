import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type RunningServer, runBinary, startBinary } from "../helpers/binary.ts";
import { createPeer, type Peer } from "../helpers/netns.ts";
import type { PeerAnswer, PeerRequest } from "../helpers/peer-client.ts";

// A container's first start, as `docker run -e SVC_AUTH=keys -p 4649:4649` makes it: the compiled
// binary on every interface, no keys yet, and a phone on the LAN (a network namespace). The log
// gives the owner a one-time login link, once; no line ever holds a key.

const root = resolve(import.meta.dir, "../..");
const made = createPeer();
const refused = "refused" in made ? made.refused : null;
if (refused) console.warn(`access-first-run: skipped, the kernel refused a network namespace (${refused})`);
const peer = made as Peer;
const dir = mkdtempSync(join(tmpdir(), "svc-first-run-"));
const env = { SVC_DB_PATH: join(dir, "svc.db"), SVC_AUTH: "keys", HOST: "0.0.0.0" };
let svc: RunningServer | undefined;

afterAll(async () => {
  await svc?.stop();
  if (!refused) peer.close();
  rmSync(dir, { recursive: true, force: true });
});

async function fromPeer(requests: PeerRequest[]): Promise<PeerAnswer[]> {
  const result = await peer.run([process.execPath, join(root, "test/helpers/peer-client.ts")], {
    stdin: JSON.stringify(requests),
  });
  if (result.code !== 0) throw new Error(`peer client failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as PeerAnswer[];
}

const links = (lines: Record<string, unknown>[]) =>
  lines.flatMap((line) => /\/login\?code=([A-Za-z0-9_-]+)/.exec(String(line.msg ?? ""))?.[1] ?? []);

describe.skipIf(refused !== null)("a container-like first start (SVC_AUTH=keys, no keys yet)", () => {
  test("prints the login link once; its code logs a LAN device in once; no line ever holds a key", async () => {
    svc = await startBinary(env);
    await Bun.sleep(200);
    const codes = links(svc.lines);
    expect(codes).toHaveLength(1);
    const base = `http://${peer.hostAddress}:${svc.port}`;
    const login = (code: string): PeerRequest => ({
      method: "POST",
      url: `${base}/api/auth/login`,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code }),
    });
    const [unkeyed, first, second] = await fromPeer([
      { method: "GET", url: `${base}/api/history` },
      login(codes[0] ?? ""),
      login(codes[0] ?? ""),
    ]);
    expect(unkeyed?.status).toBe(401);
    expect(first?.status).toBe(200);
    expect(second?.status).toBe(401);
    const cookie = /svc_session=[^;]+/.exec(first?.headers["set-cookie"] ?? "")?.[0] ?? "";
    const [history] = await fromPeer([{ method: "GET", url: `${base}/api/history`, headers: { cookie } }]);
    expect(history?.status).toBe(200);

    // A dictate key made on the machine, used from the LAN: never in a log line, event or export.
    const created = await runBinary(["keys", "create", "--name", "marked", "--role", "dictate"], env);
    const key = created.stdout.trim();
    expect(key).toMatch(/^svck_/);
    const [keyed, wrong] = await fromPeer([
      { method: "GET", url: `${base}/api/settings`, headers: { authorization: `Bearer ${key}` } },
      { method: "GET", url: `${base}/api/keys`, headers: { authorization: `Bearer ${key}` } },
    ]);
    expect(keyed?.status).toBe(200);
    expect(wrong?.status).toBe(403);
    expect(wrong?.body).not.toContain(key);
    const exported = await fetch(`${svc.url}/api/export`);
    expect(await exported.text()).not.toContain("svck_");

    // Restarted: the admin key exists, so no second link.
    await Bun.sleep(200);
    const before = svc.lines;
    expect(before.some((line) => line.msg === "access refused" && line.key === "marked")).toBe(true);
    await svc.stop();
    svc = await startBinary(env);
    await Bun.sleep(200);
    expect(links(svc.lines)).toHaveLength(0);
    const all = JSON.stringify([...before, ...svc.lines]);
    expect(all).not.toContain(key);
    expect(all).not.toContain("svck_");
  }, 180_000);
});
