import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Server } from "bun";
import type { AuthMode } from "../../src/access/keys.ts";
import { parseCidrList } from "../../src/addresses.ts";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { socketHandler } from "../../src/http/sockets.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { createPeer, type Peer } from "../helpers/netns.ts";
import type { PeerAnswer, PeerRequest } from "../helpers/peer-client.ts";
import { goForward } from "../helpers/sphinx-testdata.ts";
import { serveWyoming } from "../helpers/wyoming.ts";

// svc as a LAN serves it, and a second machine: a network namespace whose only address is on a veth
// link to this one. From there, under SVC_AUTH=keys, every route of the route table asks for a key.

const root = resolve(import.meta.dir, "../..");
const made = createPeer();
const refused = "refused" in made ? made.refused : null;
if (refused) console.warn(`access-peer: skipped, the kernel refused a network namespace (${refused})`);
const peer = made as Peer;
const work = mkdtempSync(join(tmpdir(), "svc-peer-"));
const running: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const stop of running) await stop();
  if (!refused) peer.close();
  rmSync(work, { recursive: true, force: true });
});

interface Served {
  t: TestApp;
  base: string;
  loopback: string;
  admin: string;
  dictate: string;
}

function serve(mode: AuthMode | undefined): Served {
  const t = createTestApp({ auth: mode, exposed: true });
  const admin = t.access.createKey("root", "admin").key;
  const dictate = t.access.createKey("phone", "dictate").key;
  const server: Server<unknown> = Bun.serve({
    hostname: "0.0.0.0",
    port: 0,
    routes: t.app.bunRoutes,
    fetch: t.app.fetch,
    websocket: socketHandler,
    development: false,
  });
  running.push(async () => {
    t.app.sockets.closeAll();
    await server.stop(true);
  });
  return {
    t,
    base: `http://${peer.hostAddress}:${server.port}`,
    loopback: `http://127.0.0.1:${server.port}`,
    admin,
    dictate,
  };
}

/** The requests, sent from the peer by one Bun process. */
async function fromPeer(requests: PeerRequest[]): Promise<PeerAnswer[]> {
  const result = await peer.run([process.execPath, join(root, "test/helpers/peer-client.ts")], {
    stdin: JSON.stringify(requests),
    timeoutMs: 120_000,
  });
  if (result.code !== 0) throw new Error(`peer client failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as PeerAnswer[];
}

interface Route {
  method: string;
  path: string;
  role: "open" | "dictate" | "admin";
}

/** Every documented route, with a concrete path to call. */
async function routeTable(t: TestApp): Promise<Route[]> {
  const document = (await (await t.request("/api/openapi.json")).json()) as {
    paths: Record<string, Record<string, { "x-svc-role": Route["role"] }>>;
  };
  const routes: Route[] = [];
  for (const [template, operations] of Object.entries(document.paths)) {
    const path = template
      .replace("{id}", "1")
      .replace("{key}", "language")
      .replace("{slug}", "nosuchplugin")
      .replace("{name}", "nobody")
      .replace("/*", "/index.html");
    for (const [method, operation] of Object.entries(operations)) {
      routes.push({ method: method.toUpperCase(), path, role: operation["x-svc-role"] });
    }
  }
  return routes;
}

const request = (base: string, route: Route, key?: string): PeerRequest => ({
  method: route.method,
  url: `${base}${route.path}`,
  headers: {
    ...(key ? { authorization: `Bearer ${key}` } : {}),
    ...(route.method === "GET" ? {} : { "content-type": "application/json" }),
  },
  body: route.method === "GET" ? undefined : "{}",
});

const codeOf = (answer: PeerAnswer) => {
  try {
    return (JSON.parse(answer.body) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
};

describe.skipIf(refused !== null)("SVC_AUTH=keys, from another machine", () => {
  test("every route but /api/health and /api/auth/* answers 401 without a key; a dictate key works within its role and gets 403 beyond; an admin key reaches all", async () => {
    const s = serve("keys");
    const routes = await routeTable(s.t);
    expect(routes.length).toBeGreaterThan(40);
    const open = routes
      .filter((route) => route.role === "open")
      .map((route) => `${route.method} ${route.path}`);
    // The login routes, the health check and a plugin page's public files (its sandboxed page asks for
    // them from an opaque origin, which carries no cookie), as the console's own files are.
    expect(open.sort()).toEqual([
      "GET /api/auth/session",
      "GET /api/health",
      "GET /api/plugins/nosuchplugin/ui/index.html",
      "POST /api/auth/login",
      "POST /api/auth/logout",
    ]);
    const answers = await fromPeer([
      ...routes.map((route) => request(s.base, route)),
      ...routes.map((route) => request(s.base, route, s.dictate)),
      ...routes.map((route) => request(s.base, route, s.admin)),
    ]);
    const problems: string[] = [];
    routes.forEach((route, index) => {
      const name = `${route.method} ${route.path} (${route.role})`;
      const none = answers[index] as PeerAnswer;
      const dictate = answers[index + routes.length] as PeerAnswer;
      const admin = answers[index + 2 * routes.length] as PeerAnswer;
      if (route.role === "open") {
        if (none.status === 401 && route.path !== "/api/auth/login")
          problems.push(`${name}: 401 without a key`);
      } else {
        if (none.status !== 401 || !none.headers["www-authenticate"]?.startsWith("Bearer"))
          problems.push(`${name}: ${none.status} without a key`);
        if (route.role === "dictate" && (dictate.status === 401 || dictate.status === 403))
          problems.push(`${name}: ${dictate.status} ${codeOf(dictate)} with a dictate key`);
        if (route.role === "admin" && (dictate.status !== 403 || codeOf(dictate) !== "forbidden_role"))
          problems.push(`${name}: ${dictate.status} with a dictate key, not 403 forbidden_role`);
      }
      if (admin.status === 401 || admin.status === 403)
        problems.push(`${name}: ${admin.status} with an admin key`);
    });
    expect(problems).toEqual([]);
    // Refusals were logged with the peer's address.
    expect(s.t.logs.some((line) => line.address === peer.peerAddress && line.code === "unauthorized")).toBe(
      true,
    );
    expect(JSON.stringify(s.t.logs)).not.toContain(s.dictate);
    expect(JSON.stringify(s.t.logs)).not.toContain(s.admin);
  }, 120_000);

  test("WebSocket upgrades take the key too", async () => {
    const s = serve("keys");
    const ws = (path: string, key?: string): PeerRequest => ({
      method: "GET",
      url: `${s.base.replace("http", "ws")}${path}`,
      headers: key ? { authorization: `Bearer ${key}` } : {},
      websocket: true,
    });
    const [events, eventsKeyed, dictate, dictateKeyed] = await fromPeer([
      ws("/api/events"),
      ws("/api/events", s.dictate),
      ws("/api/dictate"),
      ws("/api/dictate", s.dictate),
    ]);
    expect([events?.status, eventsKeyed?.status, dictate?.status, dictateKeyed?.status]).toEqual([
      0, 101, 0, 101,
    ]);
    // The console's sockets carry its session cookie instead.
    const [login] = await fromPeer([
      {
        method: "POST",
        url: `${s.base}/api/auth/login`,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ key: s.dictate }),
      },
    ]);
    const cookie = /svc_session=[^;]+/.exec(login?.headers["set-cookie"] ?? "")?.[0] ?? "";
    expect(cookie).not.toBe("");
    const { check } = JSON.parse(login?.body ?? "{}") as { check: string };
    // With the session's check on the URL, as the console opens them; without it, refused.
    const [withCookie, withoutCheck] = await fromPeer([
      { ...ws(`/api/events?session_check=${check}`), headers: { cookie } },
      { ...ws("/api/events"), headers: { cookie } },
    ]);
    expect([withCookie?.status, withoutCheck?.status]).toEqual([101, 0]);
  });

  test("this machine needs no key, unless a proxy forwarded the request", async () => {
    const s = serve("keys");
    expect((await fetch(`${s.loopback}/api/keys`)).status).toBe(200);
    const proxied = await fetch(`${s.loopback}/api/keys`, { headers: { "x-forwarded-for": "192.0.2.1" } });
    expect(proxied.status).toBe(401);
  });

  test("wrong keys from the peer slow the peer's guesses (429, Retry-After), not its right key, nor anybody else", async () => {
    const s = serve("keys-everywhere");
    const wrong = {
      method: "GET",
      url: `${s.base}/api/history`,
      headers: { authorization: "Bearer svck_wrong" },
    };
    const answers = await fromPeer([
      ...Array.from({ length: 11 }, () => wrong),
      { method: "GET", url: `${s.base}/api/history`, headers: { authorization: `Bearer ${s.dictate}` } },
    ]);
    expect(answers.slice(0, 10).map((answer) => answer.status)).toEqual(Array(10).fill(401));
    const slowed = answers[10] as PeerAnswer;
    expect(slowed.status).toBe(429);
    expect(Number(slowed.headers["retry-after"])).toBeGreaterThan(0);
    expect(answers[11]?.status).toBe(200);
    const local = await fetch(`${s.loopback}/api/history`, {
      headers: { authorization: `Bearer ${s.dictate}` },
    });
    expect(local.status).toBe(200);
  });

  test("the official openai client transcribes with a dictate key and raises AuthenticationError with a wrong one", async () => {
    const s = serve("keys");
    s.t.services.settings.set("stt_engine", "sphinx");
    const wav = join(work, "goforward.wav");
    writeFileSync(wav, encodeWav(goForward()));
    const client = async (key: string) => {
      const result = await peer.run(
        [
          "env",
          `SVC_TEST_URL=${s.base}/v1`,
          `SVC_TEST_KEY=${key}`,
          process.execPath,
          join(root, "test/helpers/openai-peer.ts"),
          wav,
        ],
        { timeoutMs: 120_000 },
      );
      return JSON.parse(result.stdout || "{}") as { text?: string; error?: string };
    };
    expect(await client(s.dictate)).toEqual({ text: "Go forward ten meters" });
    expect((await client("svck_not-a-key")).error).toBe("AuthenticationError");
    const history = (await (await s.t.request("/api/history")).json()) as { items: { keyName: string }[] };
    expect(history.items[0]?.keyName).toBe("phone");
  }, 120_000);
});

describe.skipIf(refused !== null)("SVC_AUTH off, from another machine", () => {
  test("everything answers without a key, as SPEC.md §5 says", async () => {
    const s = serve(undefined);
    const [history, change] = await fromPeer([
      { method: "GET", url: `${s.base}/api/history` },
      {
        method: "PUT",
        url: `${s.base}/api/settings/language`,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ value: "de" }),
      },
    ]);
    expect([history?.status, change?.status]).toEqual([200, 200]);
  });
});

describe.skipIf(refused !== null)("SVC_AUTH=keys-everywhere", () => {
  test("this machine needs a key too", async () => {
    const s = serve("keys-everywhere");
    expect((await fetch(`${s.loopback}/api/history`)).status).toBe(401);
    const keyed = await fetch(`${s.loopback}/api/history`, {
      headers: { authorization: `Bearer ${s.dictate}` },
    });
    expect(keyed.status).toBe(200);
  });
});

describe.skipIf(refused !== null)("the Wyoming listener, from another machine", () => {
  /** Whether the peer's client got an answer to `describe`, or was closed first. */
  const describeFrom = async (port: number) =>
    (
      await peer.run([
        process.execPath,
        join(root, "test/helpers/wyoming-peer.ts"),
        peer.hostAddress,
        String(port),
      ])
    ).stdout.trim();

  test("accepts a client in SVC_WYOMING_ALLOW and closes any other at accept", async () => {
    const allowed = serveWyoming({ host: "0.0.0.0", allow: parseCidrList(`${peer.peerAddress}/32`).ranges });
    const other = serveWyoming({ host: "0.0.0.0", allow: parseCidrList("192.168.0.0/16").ranges });
    running.push(allowed.stop, other.stop);
    expect(await describeFrom(allowed.port)).toBe("answered");
    // Closed as it was accepted: the client sees the connection reset, or closed, never an answer.
    expect(["closed", "refused"]).toContain(await describeFrom(other.port));
    expect(other.app.logs.some((line) => line.address === peer.peerAddress)).toBe(true);
  });
});

describe("a revoked key", () => {
  test("closes the WebSockets opened with it (1008), and no others", async () => {
    const s = serve("keys-everywhere");
    const open = (key: string) =>
      new Promise<{ ws: WebSocket; closed: Promise<number> }>((resolve, reject) => {
        const ws = new WebSocket(`${s.loopback.replace("http", "ws")}/api/events`, {
          headers: { authorization: `Bearer ${key}` },
        } as unknown as string[]);
        const closed = new Promise<number>((done) => {
          ws.onclose = (event) => done(event.code);
        });
        ws.onopen = () => resolve({ ws, closed });
        ws.onerror = () => reject(new Error("the socket did not open"));
      });
    const phone = await open(s.dictate);
    const root = await open(s.admin);
    const revoked = await fetch(`${s.loopback}/api/keys/phone`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${s.admin}` },
    });
    expect(revoked.status).toBe(204);
    expect(await phone.closed).toBe(1008);
    expect(root.ws.readyState).toBe(WebSocket.OPEN);
    root.ws.close();
  });
});
