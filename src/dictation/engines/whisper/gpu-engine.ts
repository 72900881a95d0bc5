// whisper on a GPU, seen from the server: the same engine, run in whisper's GPU process
// (gpu-process.ts) over an IPC channel. `close()` ends that process, which is what gives the GPU's
// memory and the driver's back after keep_alive; a process that ends by itself (a driver crash)
// fails the dictations it held with a 503, and the next dictation starts a new one.
import type { Subprocess } from "bun";
import { AppError } from "../../../errors.ts";
import { selfCommand } from "../../../self-command.ts";
import { GPU_ENGINE_COMMAND } from "../device-choice.ts";
import type { TranscribeOptions, TranscriptionResult } from "../types.ts";
import { describeGpuDevice } from "./device.ts";
import type { WhisperEngine, WhisperEngineOptions } from "./engine-options.ts";
import { fromWire, type GpuReply, type GpuRequest, ownBuffer } from "./gpu-protocol.ts";
import type { WhisperPlacement } from "./placement.ts";

/** How long the process may take to end once it said it closed, before it is killed. */
const EXIT_GRACE_MS = 5000;
/** The last lines the process wrote to stderr, kept for the message when it ends by itself. */
const STDERR_TAIL = 2000;

interface Pending {
  resolve(result: TranscriptionResult): void;
  reject(error: unknown): void;
}

export async function createGpuWhisperEngine(
  options: WhisperEngineOptions,
  placement: WhisperPlacement,
): Promise<WhisperEngine> {
  const device = placement.device;
  const where = device ? describeGpuDevice(device) : "the GPU";
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let closing = false;
  let stopped: AppError | undefined;
  let opened: { resolve(reply: Extract<GpuReply, { type: "ready" }>): void; reject(error: unknown): void };
  let onClosed = () => {};
  const ready = new Promise<Extract<GpuReply, { type: "ready" }>>((resolve, reject) => {
    opened = { resolve, reject };
  });
  const closed = new Promise<void>((resolve) => {
    onClosed = resolve;
  });

  const child: Subprocess<"ignore", "ignore", "pipe"> = Bun.spawn(
    selfCommand(GPU_ENGINE_COMMAND, "whisper"),
    {
      stdio: ["ignore", "ignore", "pipe"],
      serialization: "advanced",
      ipc(message: GpuReply) {
        if (message.type === "ready") return opened.resolve(message);
        if (message.type === "open-failed") return opened.reject(fromWire(message.error));
        if (message.type === "closed") return onClosed();
        const waiting = pending.get(message.id);
        pending.delete(message.id);
        if (message.type === "done") waiting?.resolve(message.result);
        else waiting?.reject(fromWire(message.error));
      },
    },
  );
  const send = (request: GpuRequest) => {
    try {
      child.send(request);
    } catch {
      // The process has ended: `ended` fails what it held.
    }
  };

  // ggml and the driver write to stderr; the tail says why when the process dies.
  let tail = "";
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) tail = (tail + decoder.decode(chunk)).slice(-STDERR_TAIL);
  })().catch(() => {});

  const ended = child.exited.then((code) => {
    if (closing) return undefined;
    const how = child.signalCode ? `was killed by ${child.signalCode}` : `exited with ${code}`;
    const said = tail.trim().split("\n").at(-1)?.slice(0, 300);
    stopped = new AppError(
      "engine_unavailable",
      `whisper's GPU process on ${where} ${how}${said ? ` (${said})` : ""}; the next dictation starts it again.`,
      {
        details: {
          engine: "whisper",
          hint: "If this repeats, set SVC_WHISPER_DEVICE=cpu and report the log.",
        },
      },
    );
    for (const waiting of pending.values()) waiting.reject(stopped);
    pending.clear();
    opened.reject(stopped);
    return stopped;
  });

  send({ type: "open", options, placement });
  let opening: Extract<GpuReply, { type: "ready" }>;
  try {
    opening = await ready;
  } catch (error) {
    closing = true;
    child.kill();
    await child.exited;
    throw error;
  }

  function transcribe(pcm: Float32Array, opts: TranscribeOptions = {}): Promise<TranscriptionResult> {
    if (closing || stopped) {
      return Promise.reject(new AppError("engine_closed", "The whisper engine has been closed."));
    }
    const { signal, ...rest } = opts;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = nextId++;
    return new Promise<TranscriptionResult>((resolve, reject) => {
      const onAbort = () => {
        // Rejected at once; the process stops the native run before its next queued call.
        pending.delete(id);
        send({ type: "abort", id });
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const settle =
        <T>(then: (value: T) => void) =>
        (value: T) => {
          signal?.removeEventListener("abort", onAbort);
          then(value);
        };
      pending.set(id, { resolve: settle(resolve), reject: settle(reject) });
      send({ type: "transcribe", id, pcm: ownBuffer(pcm), options: rest });
    });
  }

  return {
    id: "whisper",
    build: `${placement.build.name} (${placement.build.label})`,
    device: device ? describeGpuDevice(device) : "CPU",
    model: opening.model,
    threads: opening.threads,
    ended: ended.then((error) => error ?? new Promise<never>(() => {})),
    transcribe,
    async close() {
      if (closing) return;
      closing = true;
      if (!stopped) {
        send({ type: "close" });
        // Once it said "closed", every answer it sent before has arrived.
        await Promise.race([closed, child.exited]);
        const timer = setTimeout(() => child.kill("SIGKILL"), EXIT_GRACE_MS);
        child.kill();
        await child.exited;
        clearTimeout(timer);
      }
    },
  };
}
