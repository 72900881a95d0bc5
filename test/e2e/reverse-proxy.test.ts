import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { type RunningServer, startBinary } from "../helpers/binary.ts";
import { toPcm16 } from "../helpers/dictate-server.ts";
import { freePort } from "../helpers/ports.ts";
import { goForward } from "../helpers/sphinx-testdata.ts";

// The "HTTPS on your LAN" examples of docs/install.md, taken from the page as written, in front of the
// compiled binary: Debian's Caddy with its own local CA, and nginx with a certificate made here.
// Only what a machine of its own would not need changes: the listening port, svc's port and the
// certificate's path. Browsers give the microphone only to https pages, so this is how a phone dictates.
const HOST = "svc.home.arpa";
const install = readFileSync(resolve(import.meta.dir, "../../docs/install.md"), "utf8");
const section = install.slice(install.indexOf("## HTTPS on your LAN"), install.indexOf("## From source"));
const block = (lang: string) => {
  const found = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(section)?.[1];
  if (!found) throw new Error(`docs/install.md: no ${lang} block under "HTTPS on your LAN"`);
  return found;
};

const dir = mkdtempSync(join(tmpdir(), "svc-https-"));
let svc: RunningServer;

chmodSync(dir, 0o755); // nginx's workers run as nobody
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Proxy {
  name: string;
  start(port: number, work: string): Subprocess;
}

const caddy: Proxy = {
  name: "Caddy",
  start(port, work) {
    const config = block("caddyfile")
      .replace(`${HOST} {`, `${HOST}:${port} {`)
      .replace("127.0.0.1:4649", `127.0.0.1:${svc.port}`);
    // Caddy's own options for a test: no admin API, no plain-HTTP port, no trust-store install.
    const global = "{\n\tadmin off\n\tauto_https disable_redirects\n\tskip_install_trust\n}\n";
    writeFileSync(join(work, "Caddyfile"), global + config);
    return Bun.spawn(["caddy", "run", "--adapter", "caddyfile", "--config", join(work, "Caddyfile")], {
      env: { ...process.env, HOME: work, XDG_DATA_HOME: work, XDG_CONFIG_HOME: work },
      stdout: "ignore",
      stderr: "pipe",
    });
  },
};

const nginx: Proxy = {
  name: "nginx",
  start(port, work) {
    const cert = join(work, `${HOST}.pem`);
    const key = join(work, `${HOST}-key.pem`);
    const subject = ["-subj", `/CN=${HOST}`, "-addext", `subjectAltName=DNS:${HOST}`];
    const made = Bun.spawnSync(
      [
        "openssl",
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        ...subject,
        "-keyout",
        key,
        "-out",
        cert,
      ],
      { stdout: "ignore", stderr: "pipe" },
    );
    if (made.exitCode !== 0) throw new Error(`openssl: ${made.stderr}`);
    const site = block("nginx")
      .replace("listen 443 ssl;", `listen 127.0.0.1:${port} ssl;`)
      .replace("/etc/ssl/svc/svc.home.arpa.pem", cert)
      .replace("/etc/ssl/svc/svc.home.arpa-key.pem", key)
      .replace("127.0.0.1:4649", `127.0.0.1:${svc.port}`);
    mkdirSync(join(work, "tmp"));
    chmodSync(join(work, "tmp"), 0o777);
    writeFileSync(
      join(work, "nginx.conf"),
      `worker_processes 1;\nerror_log ${work}/error.log;\npid ${work}/nginx.pid;\nevents { worker_connections 64; }\n` +
        `http {\n  access_log off;\n  client_body_temp_path ${work}/tmp;\n  proxy_temp_path ${work}/tmp;\n${site}\n}\n`,
    );
    return Bun.spawn(["nginx", "-p", work, "-c", join(work, "nginx.conf"), "-g", "daemon off;"], {
      stdout: "ignore",
      stderr: "pipe",
    });
  },
};

// Bun's TLS options: the proxy's certificate is not in the system's trust store, and SNI must name the host.
const tls = { rejectUnauthorized: false, serverName: HOST };

describe.each([caddy, nginx])("svc behind $name over https", (proxy) => {
  let port: number;
  let origin: string;
  let proxyProcess: Subprocess;
  let key = "";

  beforeAll(async () => {
    port = freePort();
    origin = `https://${HOST}:${port}`;
    svc = await startBinary({
      SVC_DB_PATH: join(dir, `${proxy.name}.db`),
      SVC_ALLOWED_HOSTS: HOST,
      SVC_TRUSTED_ORIGINS: origin,
      // As docs/install.md says to run it behind a proxy: every device but this machine needs a key.
      SVC_AUTH: "keys",
    });
    const json = { "content-type": "application/json" };
    // This machine, unproxied, needs no key: it sets up the engine and the phone's key.
    await fetch(`${svc.url}/api/settings/stt_engine`, {
      method: "PUT",
      headers: json,
      body: '{"value":"sphinx"}',
    });
    const made = await fetch(`${svc.url}/api/keys`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ name: `phone-${proxy.name}`, role: "admin" }),
    });
    key = ((await made.json()) as { key: string }).key;
    const work = mkdtempSync(join(dir, `${proxy.name}-`));
    chmodSync(work, 0o755);
    proxyProcess = proxy.start(port, work);
    for (let tries = 0; tries < 100; tries++) {
      const up = await call("/api/health").then(
        (answer) => answer.ok,
        () => false,
      );
      if (up) return;
      await Bun.sleep(100);
    }
    throw new Error(
      `${proxy.name} did not come up: ${await new Response(proxyProcess.stderr as ReadableStream).text()}`,
    );
  }, 30_000);

  afterAll(async () => {
    proxyProcess?.kill();
    await proxyProcess?.exited;
    await svc?.stop();
  });

  function call(path: string, init: { method?: string; body?: string; origin?: string; key?: string } = {}) {
    const headers: Record<string, string> = { host: `${HOST}:${port}` };
    if (init.key) headers.authorization = `Bearer ${init.key}`;
    if (init.body) headers["content-type"] = "application/json";
    if (init.origin) headers.origin = init.origin;
    return fetch(`https://127.0.0.1:${port}${path}`, {
      method: init.method,
      body: init.body,
      headers,
      tls,
    } as RequestInit);
  }

  test("serves the console", async () => {
    const answer = await call("/");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toContain("text/html");
  });

  test("through the proxy, a client without a key gets 401: the proxy is not this machine", async () => {
    const refused = await call("/api/history");
    expect(refused.status).toBe(401);
    expect(
      (await call("/api/keys", { method: "POST", body: '{"name":"x","role":"admin"}', origin })).status,
    ).toBe(401);
    expect((await call("/api/history", { key })).status).toBe(200);
  });

  test("the console's login through the proxy sets __Host-svc_session, Secure", async () => {
    const login = await call("/api/auth/login", { method: "POST", body: JSON.stringify({ key }), origin });
    expect(login.status).toBe(200);
    const cookie = login.headers.get("set-cookie") ?? "";
    expect(cookie).toStartWith("__Host-svc_session=");
    expect(cookie).toContain("; Secure");
  });

  test("a change from the proxied origin is accepted; from another origin, refused", async () => {
    const body = '{"value":"de"}';
    expect((await call("/api/settings/language", { method: "PUT", body, origin, key })).status).toBe(200);
    const foreign = await call("/api/settings/language", {
      method: "PUT",
      body,
      origin: "https://evil.example",
      key,
    });
    expect(foreign.status).toBe(403);
    await call("/api/settings/language", { method: "PUT", body: '{"value":"en"}', origin, key });
  });

  test("live dictation works over wss://", async () => {
    const ws = new WebSocket(`wss://127.0.0.1:${port}/api/dictate`, {
      headers: { host: `${HOST}:${port}`, origin, authorization: `Bearer ${key}` },
      tls,
    } as unknown as string[]);
    ws.binaryType = "arraybuffer";
    const messages: { type: string; text?: string }[] = [];
    const final = new Promise<{ type: string; text?: string }>((done, fail) => {
      ws.onmessage = (event) => {
        const message = JSON.parse(String(event.data)) as { type: string; text?: string };
        messages.push(message);
        if (message.type === "ready") {
          const pcm = toPcm16(goForward());
          for (let at = 0; at < pcm.length; at += 3200) ws.send(pcm.subarray(at, at + 3200));
          ws.send(JSON.stringify({ type: "stop" }));
        }
        if (message.type === "final" || message.type === "error") done(message);
      };
      ws.onerror = () => fail(new Error("websocket error"));
    });
    ws.onopen = () => ws.send(JSON.stringify({ type: "start", format: "pcm16", sampleRate: 16000 }));
    expect(await final).toMatchObject({ type: "final", text: "Go forward ten meters" });
    ws.close();
  }, 30_000);
});
