import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runKeysCommand } from "../../src/cli/keys.ts";
import { serveDictation } from "../helpers/dictate-server.ts";

// An open WebSocket ends with the credential it was opened with: a key revoked by `svc keys revoke`
// in another process (a second connection to the database), or the console session logged out.

const work = mkdtempSync(join(tmpdir(), "svc-sockets-end-"));
const running: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of running) await stop();
  rmSync(work, { recursive: true, force: true });
});

function serve(name: string) {
  const dbPath = join(work, `${name}.db`);
  const served = serveDictation({ auth: "keys-everywhere", dbPath });
  running.push(served.stop);
  const admin = served.app.access.createKey("root", "admin").key;
  const phone = served.app.access.createKey("phone", "dictate").key;
  return { dbPath, admin, phone, base: `http://127.0.0.1:${served.port}` };
}

interface Opened {
  ws: WebSocket;
  closed: Promise<{ code: number; reason: string }>;
}

/** Opens /api/events; a console session's socket names its check on the URL, as the console does. */
function openEvents(base: string, headers: Record<string, string>, check?: string): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const query = check === undefined ? "" : `?session_check=${check}`;
    const ws = new WebSocket(`${base.replace("http", "ws")}/api/events${query}`, {
      headers,
    } as unknown as string[]);
    const closed = new Promise<{ code: number; reason: string }>((done) => {
      ws.onclose = (event) => done({ code: event.code, reason: event.reason });
    });
    ws.onopen = () => resolve({ ws, closed });
    ws.onerror = () => reject(new Error("the socket did not open"));
  });
}

/** The session cookie a login with `key` sets, and the check its answer carries. */
async function login(base: string, key: string): Promise<{ cookie: string; check: string }> {
  const res = await fetch(`${base}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key }),
  });
  expect(res.status).toBe(200);
  const cookie = /svc_session=[^;]+/.exec(res.headers.get("set-cookie") ?? "")?.[0];
  if (!cookie) throw new Error("no session cookie");
  const { check } = (await res.json()) as { check: string };
  return { cookie, check };
}

const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms)),
  ]);

describe("an open WebSocket", () => {
  test("ends when `svc keys revoke` revokes its key beside the running server; others stay", async () => {
    const s = serve("cli-revoke");
    const phone = await openEvents(s.base, { authorization: `Bearer ${s.phone}` });
    const session = await login(s.base, s.phone);
    const phoneSession = await openEvents(s.base, { cookie: session.cookie }, session.check);
    const root = await openEvents(s.base, { authorization: `Bearer ${s.admin}` });
    let stderr = "";
    const code = runKeysCommand(["revoke", "phone"], s.dbPath, {
      stdout: { write: () => {} },
      stderr: { write: (text: string) => (stderr += text) },
    });
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    // The server rechecks the database once a second while keyed sockets are open.
    expect(await within(phone.closed, 5000)).toEqual({ code: 1008, reason: "key revoked" });
    expect(await within(phoneSession.closed, 5000)).toEqual({ code: 1008, reason: "key revoked" });
    expect(root.ws.readyState).toBe(WebSocket.OPEN);
    root.ws.close();
  });

  test("opened with a console session ends when that session logs out; another session's stays", async () => {
    const s = serve("logout");
    const first = await login(s.base, s.admin);
    const second = await login(s.base, s.admin);
    const ending = await openEvents(s.base, { cookie: first.cookie }, first.check);
    const staying = await openEvents(s.base, { cookie: second.cookie }, second.check);
    const out = await fetch(`${s.base}/api/auth/logout`, {
      method: "POST",
      headers: { cookie: first.cookie },
    });
    expect(out.status).toBe(204);
    expect(await within(ending.closed, 2000)).toEqual({ code: 1008, reason: "logged out" });
    // The logged-out session no longer opens one either; the other still does.
    await expect(openEvents(s.base, { cookie: first.cookie }, first.check)).rejects.toThrow("did not open");
    expect(staying.ws.readyState).toBe(WebSocket.OPEN);
    staying.ws.close();
  });
});
