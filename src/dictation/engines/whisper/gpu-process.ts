// whisper's GPU process (`svc __gpu-engine whisper`, started by gpu-engine.ts over an IPC channel): the GPU
// build, its driver and the model live here, never in the server. Ending this process is what gives
// a GPU's memory back after keep_alive (ggml keeps its device, and CUDA its context, for the life of
// a process), and a driver that crashes takes only this process with it.
import { AppError } from "../../../errors.ts";
import type { WhisperEngine } from "./engine-options.ts";
import { type GpuReply, type GpuRequest, toWire } from "./gpu-protocol.ts";

const reply = (message: GpuReply) => process.send?.(message);

/** Serves the server's requests until it closes the engine or goes away. */
export function serveWhisperGpu(): Promise<number> {
  // Imported here: this is the only command that loads a GPU build.
  const opening = import("./engine.ts");
  const placing = import("./placement.ts");
  let engine: WhisperEngine | undefined;
  const running = new Map<number, AbortController>();

  async function open(request: Extract<GpuRequest, { type: "open" }>) {
    try {
      const device = request.placement.device;
      if (!device)
        throw new AppError("engine_unavailable", "whisper's GPU process was started without a GPU.");
      const addon = (await placing).openGpuBuild(device);
      engine = await (await opening).openWhisperEngine(addon, request.placement, request.options);
      reply({ type: "ready", model: engine.model, threads: engine.threads });
    } catch (error) {
      reply({ type: "open-failed", error: toWire(error) });
    }
  }

  async function transcribe(request: Extract<GpuRequest, { type: "transcribe" }>) {
    const controller = new AbortController();
    running.set(request.id, controller);
    try {
      if (!engine) throw new AppError("engine_closed", "The whisper engine is not open.");
      const result = await engine.transcribe(request.pcm, { ...request.options, signal: controller.signal });
      reply({ type: "done", id: request.id, result });
    } catch (error) {
      reply({ type: "failed", id: request.id, error: toWire(error) });
    } finally {
      running.delete(request.id);
    }
  }

  process.on("message", (message) => {
    const request = message as GpuRequest;
    if (request.type === "open") void open(request);
    else if (request.type === "transcribe") void transcribe(request);
    else if (request.type === "abort") running.get(request.id)?.abort(new Error("aborted by the server"));
    else if (request.type === "close") {
      // Running transcriptions finish first (the engine's close waits for them); the server ends
      // this process once "closed" reaches it, after every answer sent before it.
      void (engine?.close() ?? Promise.resolve()).finally(() => reply({ type: "closed" }));
    }
  });
  // Ends once the server closes the channel: it ended this process after "closed", or went away.
  return new Promise((resolve) => process.on("disconnect", () => resolve(0)));
}
