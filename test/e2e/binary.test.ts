import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compiledBinary, type RunningServer, runBinary, startBinary } from "../helpers/binary.ts";
import { goForward } from "../helpers/sphinx-testdata.ts";
import { syntheticModel } from "../helpers/synthetic-model.ts";
import { until } from "../helpers/until.ts";
import { connectWyoming, pcm16, streamChunks } from "../helpers/wyoming.ts";

let dir: string;
let server: RunningServer;

beforeAll(async () => {
  await compiledBinary();
  dir = mkdtempSync(join(tmpdir(), "svc-e2e-"));
  server = await startBinary({ SVC_DB_PATH: join(dir, "data", "svc.db") });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Sends raw request lines and returns the status line, so what fetch cannot send or see is seen as it is. */
function statusLine(port: number, lines: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.write([...lines, "", ""].join("\r\n"));
    });
    socket.once("data", (data) => {
      resolve(data.toString().split("\r\n")[0] ?? "");
      socket.destroy();
    });
    socket.once("error", reject);
  });
}

/** A raw WebSocket handshake: a refusal is seen as it is. */
function handshake(port: number, origin?: string): Promise<string> {
  return statusLine(port, [
    "GET /api/events HTTP/1.1",
    `Host: 127.0.0.1:${port}`,
    "Upgrade: websocket",
    "Connection: Upgrade",
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version: 13",
    ...(origin ? [`Origin: ${origin}`] : []),
  ]);
}

function firstMessage(url: string, origin?: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(
      url,
      origin ? ({ headers: { Origin: origin } } as unknown as string[]) : undefined,
    );
    ws.onmessage = (event) => {
      resolve(JSON.parse(String(event.data)));
      ws.close();
    };
    ws.onerror = () => reject(new Error("websocket error"));
  });
}

describe("compiled binary", () => {
  test("serves GET /api/health", async () => {
    const res = await fetch(`${server.url}/api/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "ok", name: "svc" });
  });

  test("GET and HEAD /api/health carry the id and security headers; guards and other methods still apply", async () => {
    for (const method of ["GET", "HEAD"]) {
      const res = await fetch(`${server.url}/api/health`, { method });
      expect({ method, status: res.status }).toEqual({ method, status: 200 });
      expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
    // GET /api/health reads no request header and issues its own id; other routes keep the caller's.
    const offered = { "x-request-id": "e2e-probe" };
    const health = await fetch(`${server.url}/api/health`, { headers: offered });
    expect(health.headers.get("x-request-id")).not.toBe("e2e-probe");
    const settings = await fetch(`${server.url}/api/settings`, { headers: offered });
    expect(settings.status).toBe(200);
    expect(settings.headers.get("x-request-id")).toBe("e2e-probe");
    const post = await fetch(`${server.url}/api/health`, { method: "POST" });
    // Bun's route table answers GET only; other methods reach Hono, which names the allowed ones.
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expect(((await post.json()) as { error: { code: string } }).error.code).toBe("method_not_allowed");
    // fetch cannot forge Host; a raw request can.
    const status = await statusLine(server.port, [
      "GET /api/health HTTP/1.1",
      "Host: rebound.evil.com",
      "Connection: close",
    ]);
    expect(status).toBe("HTTP/1.1 403 Forbidden");
  });

  test("logs JSON lines in production, one per request", async () => {
    await fetch(`${server.url}/api/health?probe=1`);
    // Log lines leave in batches (within 20 ms); poll rather than guess.
    const logged = () => server.lines.some((line) => line.msg === "request" && line.path === "/api/health");
    await until(logged, Boolean, { timeoutMs: 1000, everyMs: 25, what: "the health request's log line" });
    expect(logged()).toBe(true);
  });

  test("refuses a WebSocket upgrade from an untrusted origin with 403 and no 101", async () => {
    expect(await handshake(server.port, "http://evil.com")).toBe("HTTP/1.1 403 Forbidden");
    expect(await handshake(server.port, "null")).toBe("HTTP/1.1 403 Forbidden");
  });

  test("upgrades without an Origin or with a trusted one and sends hello", async () => {
    expect(await handshake(server.port)).toBe("HTTP/1.1 101 Switching Protocols");
    const ws = `ws://127.0.0.1:${server.port}/api/events`;
    expect(await firstMessage(ws)).toMatchObject({ type: "hello", name: "svc" });
    expect(await firstMessage(ws, "http://localhost:5173")).toMatchObject({ type: "hello" });
  });

  test("svc healthcheck exits 0 against a live server and 1 against nothing", async () => {
    const ok = await runBinary(["healthcheck"], { HOST: "127.0.0.1", PORT: String(server.port) });
    expect(ok.code).toBe(0);
    const closed = await runBinary(["healthcheck"], { HOST: "127.0.0.1", PORT: "1" });
    expect(closed.code).toBe(1);
  });

  test("svc backup writes a copy that passes integrity_check while the server runs", async () => {
    const target = join(dir, "backups", "copy.db");
    const result = await runBinary(["backup", target], { SVC_DB_PATH: join(dir, "data", "svc.db") });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(target);
    const copy = new Database(target, { readonly: true });
    expect(copy.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    expect(copy.query("SELECT count(*) AS n FROM schema_migrations").get()).toMatchObject({
      n: expect.any(Number),
    });
    copy.close();
    const again = await runBinary(["backup", target], { SVC_DB_PATH: join(dir, "data", "svc.db") });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("already exists");
  });

  test("svc version and --help answer without a database", async () => {
    const version = await runBinary(["version"], {});
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(
      /^svc \d+\.\d+\.\d+ \(commit [0-9a-f]{12}(-dirty)?, bun [\d.]+, sqlite [\d.]+\)\nwhisper\.cpp: x86-64-v[234] \(/,
    );
    const help = await runBinary(["backup", "--help"], {});
    expect(help.stdout).toContain("VACUUM INTO");
  });
});

describe("compiled binary start-up failures", () => {
  test("without SVC_DB_PATH it exits non-zero, says what to set and binds nothing", async () => {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const result = await runBinary([], { HOST: "127.0.0.1", PORT: String(port) });
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("SVC_DB_PATH is required");
    expect(result.stdout).not.toContain("listening");
    await expect(fetch(`http://127.0.0.1:${port}/api/health`)).rejects.toThrow();
  });

  test("ignores .env and bunfig.toml in its working directory", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "svc-cwd-"));
    writeFileSync(join(cwd, ".env"), `SVC_DB_PATH=${join(cwd, "from-dotenv.db")}\n`);
    writeFileSync(join(cwd, "bunfig.toml"), 'preload = ["./evil.ts"]\n');
    writeFileSync(join(cwd, "evil.ts"), 'console.log("PRELOADED");\n');
    const result = await runBinary([], { HOST: "127.0.0.1", PORT: "0" }, cwd);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("SVC_DB_PATH is required");
    expect(result.stdout + result.stderr).not.toContain("PRELOADED");
    rmSync(cwd, { recursive: true, force: true });
  });

  test("lists every invalid setting and exits 2", async () => {
    const result = await runBinary([], { SVC_DB_PATH: "/tmp/x.db", PORT: "abc", SVC_LOG_LEVEL: "loud" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("PORT must be a whole number");
    expect(result.stderr).toContain("SVC_LOG_LEVEL");
  });

  /** Runs svc serve to completion, but kills it after 4 s so a server that wrongly starts ends the test. */
  async function serveOnce(env: Record<string, string>) {
    const binary = await compiledBinary();
    const proc = Bun.spawn([binary], {
      env: { PATH: process.env.PATH ?? "", ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    const timer = setTimeout(() => proc.kill("SIGKILL"), 4_000);
    const [code, stdout, stderr] = await Promise.all([
      proc.exited,
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
    ]);
    clearTimeout(timer);
    return { code, stdout, stderr };
  }

  test("a port already in use: exit 3 and one line naming the port", async () => {
    const result = await serveOnce({
      SVC_DB_PATH: join(mkdtempSync(join(tmpdir(), "svc-busy-")), "svc.db"),
      HOST: "127.0.0.1",
      PORT: String(server.port),
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      `svc: cannot listen on 127.0.0.1:${server.port}: the port is already in use (another svc?). Stop it or set PORT to a free port.\n`,
    );
    expect(result.stdout).not.toContain("svc listening");
  });

  test("a Wyoming port already in use: exit 3 and one line naming SVC_WYOMING_PORT", async () => {
    const result = await serveOnce({
      SVC_DB_PATH: join(mkdtempSync(join(tmpdir(), "svc-wyoming-busy-")), "svc.db"),
      HOST: "127.0.0.1",
      PORT: "0",
      SVC_WYOMING_PORT: String(server.port),
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      `svc: cannot listen on 127.0.0.1:${server.port}: the port is already in use (another svc?). Stop it or set SVC_WYOMING_PORT to a free port.\n`,
    );
  });

  test("a second server on the same database (another port): exit 1, one line; the first keeps serving", async () => {
    const dbPath = join(dir, "data", "svc.db");
    const result = await serveOnce({ SVC_DB_PATH: dbPath, HOST: "127.0.0.1", PORT: "0" });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `svc: another svc server is using the database ${dbPath} (it holds ${dbPath}.lock); stop it, or point SVC_DB_PATH at another file\n`,
    );
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
  });

  test("a server killed with SIGKILL leaves no lock behind: the next one starts on the same database", async () => {
    const dbPath = join(mkdtempSync(join(tmpdir(), "svc-kill-")), "svc.db");
    const first = await startBinary({ SVC_DB_PATH: dbPath });
    expect(await first.stop("SIGKILL")).not.toBe(0);
    const second = await startBinary({ SVC_DB_PATH: dbPath });
    expect((await fetch(`${second.url}/api/health`)).status).toBe(200);
    expect(await second.stop()).toBe(0);
  });

  test("an address no interface has: exit 3 and one line saying to set HOST", async () => {
    const result = await serveOnce({
      SVC_DB_PATH: join(mkdtempSync(join(tmpdir(), "svc-addr-")), "svc.db"),
      HOST: "192.0.2.1",
      PORT: "4649",
    });
    expect(result.code).toBe(3);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("cannot listen on 192.0.2.1:4649");
    expect(result.stderr).toContain("Set HOST");
  });

  test("refuses a database written by a newer svc without touching it", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "svc-newer-")), "svc.db");
    const db = new Database(path, { create: true });
    db.run("PRAGMA user_version = 9999");
    db.close();
    const before = await Bun.file(path).bytes();
    const result = await runBinary([], { SVC_DB_PATH: path, HOST: "127.0.0.1", PORT: "0" });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("newer svc");
    expect(await Bun.file(path).bytes()).toEqual(before);
  });
});

describe("compiled binary without a usable temporary folder", () => {
  test("warns that the speech engine cannot run, and says TMPDIR must be writable", async () => {
    const own = mkdtempSync(join(tmpdir(), "svc-tmpdir-"));
    mkdirSync(join(own, "models"));
    copyFileSync(syntheticModel("micro"), join(own, "models", "ggml-base.en.bin"));
    const running = await startBinary({ SVC_DB_PATH: join(own, "svc.db"), TMPDIR: join(own, "missing") });
    const line = await until(
      () => running.lines.find((entry) => String(entry.msg).startsWith("speech engine")),
      Boolean,
      { timeoutMs: 2000, everyMs: 20, what: "a speech engine log line" },
    );
    expect(line).toMatchObject({ level: "warn", msg: "speech engine unavailable" });
    expect(JSON.stringify(line)).toContain("TMPDIR");
    expect(await running.stop()).toBe(0);
  });
});

describe("compiled binary shutdown", () => {
  test("SIGTERM closes cleanly with exit code 0", async () => {
    const own = await startBinary({ SVC_DB_PATH: join(mkdtempSync(join(tmpdir(), "svc-term-")), "svc.db") });
    expect((await fetch(`${own.url}/api/health`)).status).toBe(200);
    expect(await own.stop("SIGTERM")).toBe(0);
    expect(own.lines.some((line) => line.msg === "shutting down")).toBe(true);
  });

  test("a second signal while requests drain exits at once with 130", async () => {
    const own = await startBinary({
      SVC_DB_PATH: join(mkdtempSync(join(tmpdir(), "svc-twice-")), "svc.db"),
      SVC_SHUTDOWN_TIMEOUT_MS: "60000",
    });
    // A request whose body never finishes keeps the drain waiting.
    const socket = connect(own.port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(
      `PUT /api/settings/language HTTP/1.1\r\nHost: 127.0.0.1:${own.port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"value":`,
    );
    await Bun.sleep(100);
    own.proc.kill("SIGTERM");
    await Bun.sleep(300);
    expect(own.proc.exitCode).toBeNull();
    own.proc.kill("SIGTERM");
    expect(await own.proc.exited).toBe(130);
    socket.destroy();
  });

  test("SIGINT closes cleanly too, with an events client connected", async () => {
    const own = await startBinary({ SVC_DB_PATH: join(mkdtempSync(join(tmpdir(), "svc-int-")), "svc.db") });
    const ws = new WebSocket(`ws://127.0.0.1:${own.port}/api/events`);
    const closed = new Promise<number>((resolve) => {
      ws.onclose = (event) => resolve(event.code);
    });
    await new Promise((resolve) => {
      ws.onmessage = resolve;
    });
    expect(await own.stop("SIGINT")).toBe(0);
    expect(await closed).toBe(1001);
  });
});

describe("compiled binary: the Wyoming listener", () => {
  test("serves Home Assistant's sequence with sphinx, records it, and closes its clients on SIGTERM", async () => {
    const own = await startBinary({
      SVC_DB_PATH: join(mkdtempSync(join(tmpdir(), "svc-wyoming-")), "svc.db"),
      SVC_WYOMING_PORT: "0",
    });
    const listening = own.lines.find((line) => line.msg === "wyoming listening");
    const port = Number(/:(\d+)$/.exec(String(listening?.address))?.[1]);
    expect(listening?.address).toBe(`tcp://127.0.0.1:${port}`);
    const engine = await fetch(`${own.url}/api/settings/stt_engine`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ value: "sphinx" }),
    });
    expect(engine.status).toBe(200);

    const describing = await connectWyoming(port);
    describing.send("describe");
    const info = await describing.next("info");
    expect((info.data.asr as { name: string; supports_transcript_streaming: boolean }[])[0]).toMatchObject({
      name: "svc",
      supports_transcript_streaming: true,
    });
    describing.close();

    const client = await connectWyoming(port);
    const format = { rate: 16_000, width: 2, channels: 1 };
    client.send("transcribe", { language: "en" });
    client.send("audio-start", format);
    await streamChunks(client, pcm16(goForward()), format, 1024);
    client.send("audio-stop");
    expect((await client.next("transcript")).data).toEqual({ text: "go forward ten meters", language: "en" });
    const history = (await (await fetch(`${own.url}/api/history`)).json()) as { items: { source: string }[] };
    expect(history.items.map((item) => item.source)).toEqual(["wyoming"]);

    // A client in the middle of a command when svc stops is disconnected, and svc exits cleanly.
    const leaving = await connectWyoming(port);
    leaving.send("audio-start", format);
    expect(await own.stop("SIGTERM")).toBe(0);
    await leaving.closed;
  });
});
