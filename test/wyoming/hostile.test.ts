import { afterEach, describe, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { connectWyoming, serveWyoming, type WyomingTestServer, wyomingBytes } from "../helpers/wyoming.ts";

// Clients that do not read, or do not stop: whatever they do, what svc holds for each stays
// bounded, and they end instead of holding svc.

let served: WyomingTestServer | undefined;
afterEach(async () => {
  await served?.stop();
  served = undefined;
});

function serve(settings: Record<string, unknown> = {}) {
  served = serveWyoming();
  served.app.services.settings.set("stt_engine", "sphinx");
  for (const [key, value] of Object.entries(settings)) served.app.services.settings.set(key, value);
  return served;
}

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

  test("is held to wyoming_max_unread_bytes, is read no further, and is disconnected", async () => {
    const server = serve({ wyoming_max_unread_bytes: 65_536, wyoming_unread_timeout_seconds: 1 });
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
