import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningServer, startBinary } from "../helpers/binary.ts";

// Uploads whose body trickles or never comes, against the compiled binary under systemd's default
// descriptor limit: Bun's idle timeout restarts on every byte, so only svc's own body guard cuts them.

const timeoutMs = 2_000;
const maxUploads = 32;
const stalledCount = 300;
let dir: string;
let server: RunningServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-slow-"));
  server = await startBinary(
    {
      SVC_DB_PATH: join(dir, "svc.db"),
      SVC_BODY_TIMEOUT_MS: String(timeoutMs),
      SVC_MAX_UPLOADS: String(maxUploads),
    },
    { fdLimit: 1024 },
  );
}, 60_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Upload {
  socket: Socket;
  /** Everything that came back, once the server closed the connection. */
  answer: Promise<{ raw: string; afterMs: number }>;
}

/** Sends the head of an upload announcing `length` bytes, and no body. */
function stalledUpload(length = 100_000): Upload {
  const started = performance.now();
  const socket = connect(server.port, "127.0.0.1");
  socket.setNoDelay(true);
  socket.write(
    [
      "POST /api/transcribe HTTP/1.1",
      `Host: 127.0.0.1:${server.port}`,
      "Content-Type: audio/wav",
      `Content-Length: ${length}`,
      "",
      "",
    ].join("\r\n"),
  );
  const answer = new Promise<{ raw: string; afterMs: number }>((resolve) => {
    let raw = "";
    socket.on("data", (chunk) => {
      raw += chunk.toString();
    });
    socket.on("close", () => resolve({ raw, afterMs: performance.now() - started }));
    socket.on("error", () => {});
  });
  return { socket, answer };
}

const statusOf = (raw: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);
const codeOf = (raw: string) =>
  (JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4)) as { error: { code: string } }).error.code;

async function healthMs(): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${server.url}/api/health`, { signal: AbortSignal.timeout(5_000) });
  expect(res.status).toBe(200);
  return performance.now() - started;
}

function openFiles(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/limits`, "utf8").match(/Max open files\s+(\d+)/)?.[1]);
  } catch {
    return undefined;
  }
}

describe("stalled uploads", () => {
  test("the binary runs under the descriptor limit it was given", () => {
    const limit = openFiles(server.proc.pid);
    if (limit !== undefined) expect(limit).toBe(1024);
  });

  test(`${stalledCount} stalled uploads: health and settings answer, the first SVC_MAX_UPLOADS get 408 after the deadline, the rest 503 busy`, async () => {
    const uploads: Upload[] = [];
    for (let i = 0; i < stalledCount; i++) {
      uploads.push(stalledUpload());
      if (i % 50 === 49) await Bun.sleep(20);
    }
    await Bun.sleep(200);
    for (let i = 0; i < 5; i++) expect(await healthMs()).toBeLessThan(1_000);
    // JSON bodies have their own pool: the stalled uploads never block a settings change.
    const setting = await fetch(`${server.url}/api/settings/language`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ value: "de" }),
    });
    expect(setting.status).toBe(200);

    const answers = await Promise.all(uploads.map((upload) => upload.answer));
    const timedOut = answers.filter((answer) => statusOf(answer.raw) === 408);
    const refused = answers.filter((answer) => statusOf(answer.raw) === 503);
    expect(timedOut.length + refused.length).toBe(stalledCount);
    expect(timedOut.length).toBeLessThanOrEqual(maxUploads);
    expect(timedOut.length).toBeGreaterThan(0);
    for (const answer of timedOut) {
      expect(codeOf(answer.raw)).toBe("request_timeout");
      expect(answer.raw).toMatch(/^connection: close/im);
      expect(answer.afterMs).toBeGreaterThanOrEqual(timeoutMs - 100);
      expect(answer.afterMs).toBeLessThan(timeoutMs + 5_000);
    }
    for (const answer of refused) {
      expect(codeOf(answer.raw)).toBe("busy");
      expect(answer.raw).toMatch(/^retry-after: \d+/im);
    }
    expect(await healthMs()).toBeLessThan(1_000);
  }, 30_000);

  test("a body trickling a byte every 300 ms is cut at the deadline", async () => {
    const upload = stalledUpload(1_000);
    const trickle = setInterval(() => upload.socket.write("x"), 300);
    const { raw, afterMs } = await upload.answer;
    clearInterval(trickle);
    expect(statusOf(raw)).toBe(408);
    expect(codeOf(raw)).toBe("request_timeout");
    expect(afterMs).toBeLessThan(timeoutMs + 5_000);
  }, 15_000);
});
