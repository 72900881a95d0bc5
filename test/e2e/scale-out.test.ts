import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server, Subprocess } from "bun";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { freePort } from "../helpers/ports.ts";
import { goForward } from "../helpers/sphinx-testdata.ts";

// The scale-out setup of docs/openai.md, for real on 127.0.0.1: two svc engine servers behind
// Debian's nginx (least_conn, the page's config), and a front svc whose remote engine is nginx.

let dir: string;
const engines: { app: TestApp; server: Server<undefined> }[] = [];
let nginx: Subprocess;
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-scale-out-"));
  for (let i = 0; i < 2; i++) {
    const app = createTestApp();
    app.services.settings.set("stt_engine", "sphinx");
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request, bun) => app.app.fetch(request, bun),
    });
    engines.push({ app, server });
  }
  port = freePort();
  mkdirSync(join(dir, "tmp"));
  // Run as root, nginx's workers are "nobody": they must reach the folder and write request bodies.
  chmodSync(dir, 0o755);
  chmodSync(join(dir, "tmp"), 0o777);
  const upstreams = engines.map((engine) => `    server 127.0.0.1:${engine.server.port};`).join("\n");
  writeFileSync(
    join(dir, "nginx.conf"),
    `worker_processes 1;
error_log ${dir}/error.log;
pid ${dir}/nginx.pid;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/tmp;
  proxy_temp_path ${dir}/tmp;
  upstream svc_engines {
    least_conn;
${upstreams}
  }
  server {
    listen 127.0.0.1:${port};
    client_max_body_size 64m;
    location /v1/ {
      proxy_pass http://svc_engines;
      proxy_set_header Host localhost;
      proxy_read_timeout 300s;
    }
  }
}
`,
  );
  nginx = Bun.spawn(["nginx", "-p", dir, "-c", join(dir, "nginx.conf"), "-g", "daemon off;"], {
    stdout: "ignore",
    stderr: "pipe",
  });
  for (let tries = 0; tries < 100; tries++) {
    const up = await fetch(`http://127.0.0.1:${port}/v1/models`).then(
      (res) => res.ok,
      () => false,
    );
    if (up) return;
    await Bun.sleep(50);
  }
  throw new Error(`nginx did not start: ${await new Response(nginx.stderr as ReadableStream).text()}`);
});

afterAll(async () => {
  nginx?.kill();
  await nginx?.exited;
  for (const engine of engines) engine.server.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

describe("a front svc with engine servers behind nginx", () => {
  test("spreads dictations over the engines and runs the text pipeline once, in front", async () => {
    const front = createTestApp();
    front.services.settings.set("stt_engine", "remote");
    front.services.settings.set("remote_stt_base_url", `http://127.0.0.1:${port}/v1`);
    front.services.settings.set("remote_stt_model", "whisper-1");
    front.services.settings.set("remote_stt_concurrency", 2);
    expect((await front.json("/api/dictionary", "POST", { key: "meters", value: "metres" })).status).toBe(
      201,
    );
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        front.request("/api/transcribe", {
          method: "POST",
          body: encodeWav(goForward()),
          headers: { "content-type": "audio/wav" },
        }),
      ),
    );
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(((await res.json()) as { text: string }).text).toBe("Go forward ten metres");
    }
    // Both engines took work; each answered its engine's text, uncleaned (x-skip-post-process).
    const served = engines.map(
      (engine) =>
        engine.app.logs.filter((line) => line.path === "/v1/audio/transcriptions" && line.status === 200)
          .length,
    );
    expect(served.every((count) => count > 0)).toBe(true);
    expect(served.reduce((sum, count) => sum + count, 0)).toBe(4);
    const history = (await (await engines[0]?.app.request("/api/history"))?.json()) as {
      items: { finalText: string }[];
    };
    expect(history.items[0]?.finalText).toBe("go forward ten meters");
  }, 60_000);
});
