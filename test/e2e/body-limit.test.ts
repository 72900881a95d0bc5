import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningServer, startBinary } from "../helpers/binary.ts";

// Bodies over SVC_MAX_BODY_SIZE and clients that hang up, against the compiled binary: what Bun
// does below the app (its own size cap, its connection handling) is part of what is tested.

const limit = 1024 * 1024;
let dir: string;
let server: RunningServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-body-"));
  server = await startBinary({ SVC_DB_PATH: join(dir, "svc.db"), SVC_MAX_BODY_SIZE: String(limit) });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Opens a connection, writes the head of a POST, and collects whatever comes back until it closes. */
function open(headers: string[]): { socket: Socket; answer: Promise<string> } {
  const socket = connect(server.port, "127.0.0.1");
  socket.write(
    [
      `POST /api/transcribe HTTP/1.1`,
      `Host: 127.0.0.1:${server.port}`,
      "Content-Type: audio/wav",
      ...headers,
      "",
      "",
    ].join("\r\n"),
  );
  const answer = new Promise<string>((resolve) => {
    let data = "";
    socket.on("data", (chunk) => {
      data += chunk.toString();
    });
    socket.on("close", () => resolve(data));
    socket.on("error", () => {});
  });
  return { socket, answer };
}

const statusOf = (raw: string) =>
  Number(/^HTTP\/1\.1 (\d{3})/m.exec(raw.replace(/^HTTP\/1\.1 100[^\n]*\n\r?\n/, ""))?.[1]);
const bodyOf = (raw: string) =>
  JSON.parse(raw.slice(raw.lastIndexOf("\r\n\r\n") + 4)) as { error: { code: string } };
const idOf = (raw: string) => /^x-request-id: (\S+)/im.exec(raw)?.[1];

async function logLine(requestId: string | undefined, msg = "request") {
  for (let tries = 0; tries < 50; tries++) {
    const line = server.lines.find((entry) => entry.requestId === requestId && entry.msg === msg);
    if (line) return line;
    await Bun.sleep(20);
  }
  return undefined;
}

describe("bodies over SVC_MAX_BODY_SIZE", () => {
  test("a Content-Length far over the limit: the JSON envelope with an id, a log line, and the connection closes unread", async () => {
    // 2 GB announced, nothing sent: the answer must not wait for (or read) the body.
    const { answer } = open(["Content-Length: 2000000000"]);
    const raw = await answer;
    expect(statusOf(raw)).toBe(413);
    expect(raw).toMatch(/^connection: close/im);
    expect(bodyOf(raw).error.code).toBe("payload_too_large");
    const id = idOf(raw);
    expect(id).toBeString();
    expect((await logLine(id))?.status).toBe(413);
  });

  test("a chunked body that grows past the limit is cut off with the same envelope", async () => {
    // The server closes with our unread bytes in its buffer, so its kernel may answer with a
    // reset that reaches us before we read the 413 (the race HTTP servers' "lingering close"
    // narrows): then the answer is lost in transit, not wrong. Up to five connections; every
    // answer that arrives must be the 413, and one must arrive.
    const answers: string[] = [];
    for (let attempt = 0; attempt < 5 && !answers.some((raw) => raw !== ""); attempt++) {
      answers.push(await sendChunkedPastLimit());
    }
    const received = answers.filter((raw) => raw !== "");
    expect(received).toHaveLength(1);
    for (const raw of received) {
      expect(statusOf(raw)).toBe(413);
      expect(bodyOf(raw).error.code).toBe("payload_too_large");
      expect((await logLine(idOf(raw)))?.status).toBe(413);
    }
  });
});

/** Sends 64 KiB chunks until the server closes (twice the limit at most); returns what came back. */
async function sendChunkedPastLimit(): Promise<string> {
  const { socket, answer } = open(["Transfer-Encoding: chunked"]);
  const piece = Buffer.alloc(64 * 1024);
  const frame = Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")]);
  let closed = false;
  socket.once("close", () => {
    closed = true;
  });
  for (let sent = 0; sent < 2 * limit && !closed; sent += piece.length) {
    if (!socket.write(frame)) {
      await new Promise((resolve) => {
        socket.once("drain", resolve);
        socket.once("close", resolve);
      });
    }
  }
  socket.end();
  return answer;
}

describe("a client that hangs up mid-upload", () => {
  test("is logged at info as 499, not as an unhandled error", async () => {
    const before = server.lines.length;
    const { socket } = open(["Content-Length: 100000", "X-Request-Id: hangs-up-1"]);
    socket.write(Buffer.alloc(1000));
    await Bun.sleep(200);
    socket.destroy();
    const line = await logLine("hangs-up-1");
    expect(line?.status).toBe(499);
    expect((await logLine("hangs-up-1", "client closed the connection before the answer"))?.level).toBe(
      "info",
    );
    expect(server.lines.slice(before).some((entry) => entry.level === "error")).toBe(false);
  });
});
