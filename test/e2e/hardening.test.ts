import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Server } from "bun";
import type { Browser } from "playwright-core";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { attackFrom, serveAttacker, stateOf, type Target } from "../helpers/attacker-pages.ts";
import { type RunningServer, startBinary } from "../helpers/binary.ts";
import { launchChromium } from "../helpers/browser.ts";
import { connect as connectDictate, toPcm16 } from "../helpers/dictate-server.ts";
import { freePort } from "../helpers/ports.ts";
import { rawRequest } from "../helpers/raw-http.ts";
import { fakeSpeechServer } from "../helpers/speech-server.ts";
import { goForward } from "../helpers/sphinx-testdata.ts";
import { until } from "../helpers/until.ts";
import { connectWyoming, pcm16, streamChunks, wyomingBytes } from "../helpers/wyoming.ts";

// Issue 26's hostile cases against the compiled binary: what a page on another local port can
// send without a preflight, the dictation socket, secrets that follow a URL, Wyoming clients that
// do not read or do not stop, cheap lock-outs, and preflights in a plugin's namespace. (The
// escaped enable/disable paths a plugin page tries through the bridge are in
// test/browser/console-hostile.test.ts, against this binary's console.)

const fixtures = resolve(import.meta.dir, "../fixtures/plugins");
let dir: string;
let server: RunningServer;
let wyomingPort: number;

const put = (key: string, value: unknown) =>
  fetch(`${server.url}/api/settings/${key}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ value }),
  });

const rssMiB = async (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(await Bun.file(`/proc/${pid}/status`).text())?.[1] ?? 0) / 1024;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-e2e-hardening-"));
  const pluginsDir = join(dir, "data", "plugins");
  mkdirSync(pluginsDir, { recursive: true });
  cpSync(join(fixtures, "fx-routes"), join(pluginsDir, "fx-routes"), { recursive: true });
  wyomingPort = freePort();
  // Closed ports for the registry and the model mirror: nothing here may leave the machine.
  server = await startBinary({
    SVC_DB_PATH: join(dir, "data", "svc.db"),
    SVC_WYOMING_PORT: String(wyomingPort),
    SVC_NPM_REGISTRY: "http://127.0.0.1:9",
    SVC_MODEL_BASE_URL: "http://127.0.0.1:9",
  });
  const started = () =>
    server.lines.some((line) => typeof line.msg === "string" && line.msg.startsWith("speech engine"));
  await until(started, Boolean, { timeoutMs: 20_000, what: "the start's engine line" });
  expect((await put("plugins", ["@fx/routes"])).status).toBe(200);
  expect((await put("stt_engine", "sphinx")).status).toBe(200);
  // RSS figures below start from a warm server: one dictation loads the detector and the engine.
  const warm = await fetch(`${server.url}/api/transcribe`, {
    method: "POST",
    headers: { "content-type": "audio/wav" },
    body: encodeWav(goForward()),
  });
  expect(warm.status).toBe(200);
  // Installed through the API, so switched off: enabling it would run its code.
  const install = await fetch(`${server.url}/api/plugins/install`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ npmName: "@svc/profanity-filter" }),
  });
  expect(install.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("a page on another local port, against the binary", () => {
  let browser: Browser;
  let attacker: Server<undefined>;
  const targets: Target[] = [];

  beforeAll(async () => {
    // Every state-changing route the binary's API reference lists, its parameters filled in.
    const reference = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    for (const [path, operations] of Object.entries(reference.paths)) {
      for (const method of Object.keys(operations)) {
        if (!["post", "put", "patch", "delete"].includes(method)) continue;
        const filled = path
          .replace("{slug}", "svc-profanity-filter")
          .replace("{key}", "llm_base_url")
          .replace("{id}", path.startsWith("/api/models") ? "tiny.en" : "1");
        targets.push({ method: method.toUpperCase(), path: filled });
      }
    }
    targets.push({ method: "POST", path: "/api/plugins/fx-routes/echo" });
    attacker = serveAttacker(server.url, () => targets);
    browser = await launchChromium(["--short-reporting-delay"]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    attacker?.stop(true);
  });

  const snapshot = () => stateOf(async (path) => (await fetch(`${server.url}${path}`)).text());

  test("changes nothing with forms, beacons, no-cors fetches, CSP reports, pings or reports", async () => {
    const posts = targets.filter((target) => target.method === "POST").length;
    expect(posts).toBeGreaterThan(15);
    const before = await snapshot();
    await Bun.sleep(100);
    const from = server.lines.length;
    const requests = () =>
      server.lines.slice(from).filter((line) => line.msg === "request" && line.method === "POST");
    const { heardPerKind } = await attackFrom(
      browser,
      `http://localhost:${attacker.port}`,
      posts,
      async (count) => {
        const deadline = performance.now() + 10_000;
        while (requests().length < count && performance.now() < deadline) await Bun.sleep(20);
        return requests().length;
      },
    );
    expect(heardPerKind).toEqual([posts * 3, posts, posts]);
    expect(requests().filter((line) => line.status !== 403)).toEqual([]);
    expect(await snapshot()).toEqual(before);
  }, 90_000);
});

describe("the dictation socket", () => {
  const handshake = (path: string, origin: string) =>
    rawRequest(server.port, [
      `GET ${path} HTTP/1.1`,
      `Host: 127.0.0.1:${server.port}`,
      "Upgrade: websocket",
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
      "Sec-WebSocket-Version: 13",
      `Origin: ${origin}`,
    ]);

  test("is refused to other local ports; /api/events is not", async () => {
    for (const origin of ["http://localhost:5173", "http://127.0.0.1:8080"]) {
      const { status, body } = await handshake("/api/dictate", origin);
      expect({ origin, status }).toEqual({ origin, status: 403 });
      expect(body).toContain("cross_origin_request");
    }
    const events = new WebSocket(`ws://127.0.0.1:${server.port}/api/events`, {
      headers: { Origin: "http://localhost:5173" },
    } as unknown as string[]);
    const hello = await new Promise<string>((done, fail) => {
      events.onmessage = (event) => done(String(event.data));
      events.onerror = () => fail(new Error("events socket refused"));
    });
    events.close();
    expect(JSON.parse(hello)).toMatchObject({ type: "hello" });
  });

  test("idle sockets never lock out a session that starts", async () => {
    const idle = Array.from({ length: 6 }, () => connectDictate(`ws://127.0.0.1:${server.port}/api/dictate`));
    await Promise.all(idle.map((client) => client.opened));
    const client = connectDictate(`ws://127.0.0.1:${server.port}/api/dictate`);
    await client.opened;
    client.json({ type: "start", format: "pcm16", sampleRate: 16_000 });
    await client.next("ready");
    const bytes = toPcm16(Float32Array.from([...goForward(), ...new Float32Array(16_000)]));
    for (let at = 0; at < bytes.length; at += 3200) client.ws.send(bytes.subarray(at, at + 3200));
    client.json({ type: "stop" });
    expect((await client.next("final")).text).toBe("Go forward ten meters");
    // They are closed soon after for never starting.
    const closed = await Promise.all(idle.map((socket) => socket.closed));
    expect(closed.map((close) => close.code)).toEqual(Array(6).fill(1008));
  }, 30_000);
});

describe("a secret and the URL it is sent to", () => {
  test("a base URL moved to another server never sends it the old key", async () => {
    const seen: Record<string, (string | null)[]> = { owner: [], attacker: [] };
    const stand = (name: string) =>
      fakeSpeechServer((request) => {
        seen[name]?.push(request.headers.get("authorization"));
        return "rm -rf ~ # injected";
      });
    const owner = stand("owner");
    const attacker = stand("attacker");
    try {
      await put("remote_stt_model", "whisper-1");
      await put("remote_stt_base_url", owner.url);
      await put("remote_stt_api_key", "sk-user-secret");
      const moved = (await (await put("remote_stt_base_url", attacker.url)).json()) as {
        cleared?: string[];
      };
      expect(moved.cleared).toEqual(["remote_stt_api_key"]);
      await put("stt_engine", "remote");
      const res = await fetch(`${server.url}/api/transcribe`, {
        method: "POST",
        headers: { "content-type": "audio/wav" },
        body: encodeWav(goForward()),
      });
      expect(res.status).toBe(200);
      expect(seen.attacker?.length).toBeGreaterThan(0);
      expect(seen.attacker?.filter((header) => header !== null)).toEqual([]);
    } finally {
      await put("stt_engine", "sphinx");
      owner.stop();
      attacker.stop();
    }
  }, 30_000);
});

describe("Wyoming clients that do not read, or do not stop", () => {
  /** A client that writes `bytes` as fast as its socket drains and reads nothing. */
  function deafFlood(bytes: Uint8Array, times: number) {
    const socket = connect(wyomingPort, "127.0.0.1");
    const closed = new Promise<number>((done) => {
      const started = performance.now();
      socket.on("close", () => done(performance.now() - started));
    });
    socket.on("error", () => {});
    socket.on("connect", () => {
      socket.pause();
      let sent = 0;
      const pump = () => {
        while (sent < times && !socket.destroyed && socket.write(bytes)) sent++;
      };
      socket.on("drain", pump);
      pump();
    });
    return { socket, closed };
  }

  async function peakRss(until: Promise<unknown>): Promise<number> {
    let peak = 0;
    let done = false;
    until.then(() => {
      done = true;
    });
    while (!done) {
      peak = Math.max(peak, await rssMiB(server.proc.pid));
      await Bun.sleep(20);
    }
    return peak;
  }

  const closedFor = (code: string) =>
    server.lines.filter((line) => line.msg === "wyoming connection closed" && line.code === code).length;

  test("10,000 pings of 60 KB, never read: RSS stays within bounds and the client is cut", async () => {
    const baseline = await rssMiB(server.proc.pid);
    const cut = closedFor("too_fast");
    const flood = deafFlood(wyomingBytes("ping", { text: "x".repeat(60_000) }), 10_000);
    const peak = await peakRss(Promise.race([flood.closed, Bun.sleep(15_000)]));
    expect(await Promise.race([flood.closed, Bun.sleep(0).then(() => -1)])).toBeGreaterThanOrEqual(0);
    // svc ended it for its pace, not for anything else.
    await Bun.sleep(100);
    expect(closedFor("too_fast")).toBe(cut + 1);
    // docs/home-assistant.md's bound for one connection is about 1.4 MiB; the rest is garbage not yet
    // collected.
    expect(peak - baseline).toBeLessThan(64);
    flood.socket.destroy();
  }, 30_000);

  test("describes within the pace, never read: held to the unread bound, then cut", async () => {
    expect((await put("wyoming_unread_timeout_seconds", 2)).status).toBe(200);
    try {
      const baseline = await rssMiB(server.proc.pid);
      // 2,000 describes a second (76 KB): within the pace, each answered with some 650 bytes.
      const socket = connect(wyomingPort, "127.0.0.1");
      socket.on("error", () => {});
      await new Promise<void>((done) => socket.on("connect", () => done()));
      socket.pause();
      const closed = new Promise<void>((done) => socket.on("close", () => done()));
      const describe = wyomingBytes("describe");
      const timer = setInterval(() => {
        for (let i = 0; i < 200; i++) socket.write(describe);
      }, 100);
      const warned = () =>
        server.lines.filter((line) => line.msg === "wyoming client does not read its answers; disconnected")
          .length;
      const before = warned();
      const peak = await peakRss(Promise.race([closed, Bun.sleep(25_000)]));
      clearInterval(timer);
      expect(socket.destroyed || socket.readyState === "closed").toBe(true);
      await Bun.sleep(100);
      expect(warned()).toBe(before + 1);
      // What svc holds for it is about 1.4 MiB (docs/home-assistant.md); building 12,000 answers leaves
      // garbage the collector takes back when it runs (docs/install.md, Memory: RSS swings by tens of
      // MiB).
      expect(peak - baseline).toBeLessThan(100);
      socket.destroy();
    } finally {
      await put("wyoming_unread_timeout_seconds", 10);
    }
  }, 40_000);

  test("eight clients pinging cannot lock Home Assistant out", async () => {
    const pingers = await Promise.all(Array.from({ length: 8 }, () => connectWyoming(wyomingPort)));
    const pinging = setInterval(() => {
      for (const pinger of pingers) if (!pinger.isClosed()) pinger.send("ping", { text: "here" });
    }, 100);
    try {
      await Bun.sleep(300);
      const assist = await connectWyoming(wyomingPort);
      const format = { rate: 16_000, width: 2, channels: 1 };
      assist.send("transcribe", { language: "en" });
      assist.send("audio-start", format);
      await streamChunks(
        assist,
        pcm16(Float32Array.from([...goForward(), ...new Float32Array(16_000)])),
        format,
        1024,
      );
      assist.send("audio-stop");
      expect((await assist.next("transcript")).data.text).toBe("go forward ten meters");
    } finally {
      clearInterval(pinging);
      for (const pinger of pingers) pinger.close();
    }
  }, 30_000);
});

describe("a preflight in a plugin's namespace", () => {
  test("is answered 204 by svc with no CORS grant; the plugin never sees it", async () => {
    const res = await fetch(`${server.url}/api/plugins/fx-routes/echo`, {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:5173",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });
    expect(res.status).toBe(204);
    expect([...res.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([]);
    const seen = (await (await fetch(`${server.url}/api/plugins/fx-routes/seen`)).json()) as {
      seen: string[];
    };
    expect(seen.seen.filter((path) => path.endsWith("/echo"))).toEqual([]);
    const cors = await fetch(`${server.url}/api/plugins/fx-routes/cors`);
    expect([...cors.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([]);
  });
});
