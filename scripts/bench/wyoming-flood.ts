// Wyoming floods against a real svc (src/main.ts, sphinx) on 127.0.0.1, with GET /api/health polled
// back to back meanwhile: how long anyone else waits while hostile Wyoming clients do their worst.
// Rows: idle; 8 clients sending noise as fast as the socket takes it, reconnecting whenever svc
// ends them (too_fast); 8 clients sending 60 KB pings and never reading the pongs. Target: health
// p99 ≤ 50 ms. The flooding clients run in this process, on the same two cores as svc.
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort } from "../../test/helpers/ports.ts";
import { wyomingBytes } from "../../test/helpers/wyoming.ts";
import { fmt, percentile, pollHealth, rssMb, startedUp, startServer, table } from "./util.ts";

const root = resolve(process.env.BENCH_SVC_ROOT ?? join(import.meta.dir, "../.."));
const seconds = Number(process.env.BENCH_FLOOD_SECONDS ?? 10);
const clients = 8;
const targetMs = 50;
const format = { rate: 16_000, width: 2, channels: 1 };

/** A port nothing listens on now, for the Wyoming listener. */

/** 8 KiB of loud white noise as one audio-chunk event. */
function noiseChunk(): Uint8Array {
  const samples = new Int16Array(4096);
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round((Math.random() * 2 - 1) * 12_000);
  return wyomingBytes("audio-chunk", format, new Uint8Array(samples.buffer));
}

interface Flooder {
  /** Connections svc ended (each reconnects until the flood is over). */
  ended: number;
  stop(): void;
}

/**
 * One client that keeps connecting and writing `next()` events as fast as its socket drains,
 * never reading; `paused` clients do not read at all (their pongs pile up in svc).
 */
function flood(port: number, first: Uint8Array[], next: () => Uint8Array, paused: boolean): Flooder {
  let over = false;
  let socket: Socket | undefined;
  const state: Flooder = {
    ended: 0,
    stop() {
      over = true;
      socket?.destroy();
    },
  };
  const open = () => {
    if (over) return;
    const current = connect(port, "127.0.0.1");
    socket = current;
    current.on("error", () => {});
    current.on("close", () => {
      if (over) return;
      state.ended++;
      setTimeout(open, 10);
    });
    current.on("connect", () => {
      if (paused) current.pause();
      for (const event of first) current.write(event);
      const pump = () => {
        while (!over && !current.destroyed && current.write(next())) {
          // Until the socket's buffer is full; then wait for it to drain.
        }
      };
      current.on("drain", pump);
      pump();
    });
    if (!paused) current.on("data", () => {});
  };
  open();
  return state;
}

interface Row {
  name: string;
  health: number[];
  ended: number;
  rssMb: number;
}

async function measure(url: string, pid: number, name: string, start?: () => Flooder[]): Promise<Row> {
  const poller = pollHealth(url, pid);
  const flooders = start?.() ?? [];
  await Bun.sleep(seconds * 1000);
  for (const flooder of flooders) flooder.stop();
  const seen = await poller.stop();
  await Bun.sleep(500);
  return {
    name,
    health: seen.ms.sort((a, b) => a - b),
    ended: flooders.reduce((sum, flooder) => sum + flooder.ended, 0),
    rssMb: seen.peakRssMb,
  };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-flood-"));
  const logFile = join(dir, "svc.log");
  const port = freePort();
  const server = await startServer(
    [process.execPath, join(root, "src/main.ts")],
    { SVC_DB_PATH: join(dir, "svc.db"), SVC_WYOMING_PORT: String(port), SVC_LOG_LEVEL: "info" },
    logFile,
  );
  try {
    await startedUp(logFile);
    const engine = await fetch(`${server.url}/api/settings/stt_engine`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ value: "sphinx" }),
    });
    if (!engine.ok) throw new Error(`could not choose sphinx: ${engine.status}`);
    const noise = Array.from({ length: 16 }, noiseChunk);
    let turn = 0;
    const ping = wyomingBytes("ping", { text: "x".repeat(60_000) });
    const rows = [
      await measure(server.url, server.proc.pid, "idle"),
      await measure(server.url, server.proc.pid, `${clients} clients sending noise as fast as they can`, () =>
        Array.from({ length: clients }, () =>
          flood(
            port,
            [wyomingBytes("audio-start", format)],
            () => noise[turn++ % noise.length] ?? ping,
            false,
          ),
        ),
      ),
      await measure(
        server.url,
        server.proc.pid,
        `${clients} clients sending 60 KB pings, never reading`,
        () => Array.from({ length: clients }, () => flood(port, [], () => ping, true)),
      ),
    ];
    console.log(
      `\nWyoming floods, ${seconds} s each, sphinx; GET /api/health polled back to back; target health p99 ≤ ${targetMs} ms`,
    );
    table([
      [
        "flood",
        "health p50 ms",
        "health p99 ms",
        "÷target",
        "health max ms",
        "connections svc ended",
        "peak RSS MiB",
      ],
      ...rows.map((row) => [
        row.name,
        fmt(percentile(row.health, 50)),
        fmt(percentile(row.health, 99)),
        `${fmt(percentile(row.health, 99) / targetMs, 2)}×`,
        fmt(row.health.at(-1) ?? Number.NaN),
        row.ended,
        fmt(row.rssMb, 0),
      ]),
    ]);
    console.log(`svc's RSS after the floods: ${fmt(rssMb(server.proc.pid), 0)} MiB`);
  } finally {
    server.proc.kill();
    await server.proc.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await run();
