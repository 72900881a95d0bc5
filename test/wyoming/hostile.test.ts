import { describe, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { connectWyoming, wyomingBytes, wyomingPerTest } from "../helpers/wyoming.ts";

// Clients that do not read, or do not stop: whatever they do, what svc holds for each stays
// bounded, and they end instead of holding svc.

const serve = wyomingPerTest();

/** A client that writes and never reads what svc answers (its socket is paused from the start). */
function deafClient(port: number): Promise<{ socket: Socket; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.pause();
      resolve({ socket, closed: new Promise((done) => socket.once("close", () => done())) });
    });
    socket.once("error", reject);
  });
}

describe("a Wyoming client that never reads its answers", () => {
  test("gets pongs of at most 1024 characters of its text", async () => {
    const client = await connectWyoming(serve().port);
    client.send("ping", { text: "é".repeat(30_000) });
    const pong = await client.next("pong");
    expect(pong.data.text).toBe("é".repeat(1024));
  });

  test("is held to SVC_WYOMING_MAX_UNREAD_SIZE, is read no further, and is disconnected", async () => {
    // The flood itself is allowed here: this is about the answers it leaves unread.
    const server = serve(
      { wyoming_unread_timeout_seconds: 1, wyoming_max_control_bytes_per_second: 16_777_216 },
      { operator: { wyomingMaxUnreadBytes: 65_536 } },
    );
    const { socket, closed } = await deafClient(server.port);
    // 20,000 pings and describes: far more answers (some 25 MB) than the kernel's buffers hold.
    const ping = wyomingBytes("ping", { text: "x".repeat(1024) });
    const describe = wyomingBytes("describe");
    for (let i = 0; i < 10_000; i++) {
      socket.write(ping);
      socket.write(describe);
    }
    let most = 0;
    let connected = true;
    closed.then(() => {
      connected = false;
    });
    const started = performance.now();
    while (connected && performance.now() - started < 5000) {
      most = Math.max(most, server.server.unreadBytes);
      await Bun.sleep(5);
    }
    // The bound, plus the one answer that crossed it (an info event, a few KB).
    expect(most).toBeGreaterThan(60_000);
    expect(most).toBeLessThan(65_536 + 64 * 1024);
    expect(connected).toBe(false);
    expect(server.server.connections).toBe(0);
    socket.destroy();
  });
});

describe("a Wyoming client that floods events other than audio", () => {
  test("is cut with too_fast past wyoming_max_control_bytes_per_second; a command's events fit", async () => {
    const server = serve();
    const assist = await connectWyoming(server.port);
    assist.send("describe");
    assist.send("transcribe", { language: "en" });
    assist.send("ping", { text: "a".repeat(1000) });
    expect((await assist.next("pong")).data.text).toHaveLength(1000);
    const { socket, closed } = await deafClient(server.port);
    const ping = wyomingBytes("ping", { text: "x".repeat(60_000) });
    let sent = 0;
    for (; sent < 200 && !socket.destroyed; sent++) socket.write(ping);
    await closed;
    expect(server.server.connections).toBe(1);
    expect(assist.isClosed()).toBe(false);
  });
});

describe("a Wyoming client that drips an event", () => {
  const header =
    '{"type":"audio-chunk","data":{"rate":16000,"width":2,"channels":1},"payload_length":4096}\n';

  test("a byte at a time, mid-payload, is cut with request_timeout long before the idle timeout", async () => {
    const server = serve({ wyoming_idle_timeout_seconds: 60 }, { rateWindowMs: 300 });
    const client = await connectWyoming(server.port);
    client.send("audio-start", { rate: 16_000, width: 2, channels: 1 });
    client.raw(header);
    const started = performance.now();
    const drip = setInterval(() => client.raw(new Uint8Array(1)), 50);
    try {
      const error = await client.next("error");
      expect(error.data.code).toBe("request_timeout");
      expect(String(error.data.text)).toContain("wyoming_min_bytes_per_second");
      await client.closed;
    } finally {
      clearInterval(drip);
    }
    expect(performance.now() - started).toBeLessThan(5000);
  });

  test("an event split into pieces that come quickly enough is read", async () => {
    // 16 KiB in 1 KiB pieces 100 ms apart: ten times the least rate, over several windows.
    const server = serve({}, { rateWindowMs: 500 });
    const client = await connectWyoming(server.port);
    client.send("audio-start", { rate: 16_000, width: 2, channels: 1 });
    client.raw(header.replace("4096", "16384"));
    for (let piece = 0; piece < 16; piece++) {
      await Bun.sleep(100);
      client.raw(new Uint8Array(1024));
    }
    client.send("ping", { text: "after" });
    expect((await client.next("pong")).data.text).toBe("after");
    expect(client.events.filter((event) => event.type === "error")).toEqual([]);
  });
});
