// Silero VAD v6 (MIT) on ONNX Runtime's WebAssembly build, in a process of its own (`svc
// __silero-vad`, started by silero.ts over an IPC channel). Off the server's thread: loading the
// model (about half a second) and scoring a long upload (0.3–0.5 s for 30 s of audio) would
// otherwise hold every request. And a process, not a Worker: a WebAssembly heap cannot shrink, and a
// terminated Worker leaves some 20 MiB behind, where an ended process gives everything back.
import sileroModel from "@ricky0123/vad-web/dist/silero_vad_v6.onnx" with { type: "file" };
import ortWasm from "onnxruntime-web/ort-wasm-simd-threaded.wasm" with { type: "file" };
import { SAMPLE_RATE } from "../audio/index.ts";
import { FRAME_SAMPLES } from "./types.ts";

export type SileroRequest =
  | { type: "load" }
  | { type: "score"; id: number; stream: number; frame: Float32Array }
  | { type: "release"; stream: number };

export type SileroReply =
  | { type: "ready" }
  | { type: "load-failed"; message: string }
  | { type: "scored"; id: number; probability: number }
  | { type: "failed"; id: number; message: string };

/** Silero sees the last 64 samples of the previous window before each new one. */
const CONTEXT = 64;
/** Its recurrent state: 2 × batch 1 × 128. */
const STATE = 2 * 128;
const PRIMING_FRAMES = 32;

const reply = (message: SileroReply) => process.send?.(message);

interface StreamState {
  input: Float32Array;
  state: Float32Array;
}

type Score = (stream: StreamState, frame: Float32Array) => Promise<number>;

async function load(): Promise<Score> {
  const ort = await import("onnxruntime-web/wasm");
  // One thread: a threaded build would start Workers of its own from a script URL a binary lacks.
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmBinary = await Bun.file(ortWasm).arrayBuffer();
  const session = await ort.InferenceSession.create(await Bun.file(sileroModel).bytes(), {
    executionMode: "sequential",
    graphOptimizationLevel: "all",
  });
  const sampleRate = new ort.Tensor("int64", BigInt64Array.from([BigInt(SAMPLE_RATE)]), []);
  const score: Score = async (stream, frame) => {
    stream.input.copyWithin(0, FRAME_SAMPLES);
    stream.input.set(frame, CONTEXT);
    const out = await session.run({
      input: new ort.Tensor("float32", stream.input, [1, stream.input.length]),
      state: new ort.Tensor("float32", stream.state, [2, 1, 128]),
      sr: sampleRate,
    });
    const { output, stateN } = out;
    if (!output || !stateN) throw new Error("the Silero model answered without output or stateN");
    stream.state.set(stateN.data as Float32Array);
    return (output.data as Float32Array)[0] ?? 0;
  };
  // The engine compiles the WebAssembly quickly and optimises it once it runs: a second of
  // scoring here (about 0.2 s) spares the first dictation some 0.3–0.6 s.
  const warm = newStream();
  for (let i = 0; i < PRIMING_FRAMES; i++) await score(warm, new Float32Array(FRAME_SAMPLES));
  return score;
}

const newStream = (): StreamState => ({
  input: new Float32Array(CONTEXT + FRAME_SAMPLES),
  state: new Float32Array(STATE),
});

let model: Promise<Score> | undefined;
const streams = new Map<number, StreamState>();

async function handle(request: SileroRequest): Promise<void> {
  if (request.type === "load") {
    model ??= load();
    try {
      await model;
      reply({ type: "ready" });
    } catch (error) {
      reply({ type: "load-failed", message: error instanceof Error ? error.message : String(error) });
    }
  } else if (request.type === "release") {
    streams.delete(request.stream);
  } else {
    try {
      const score = await (model ?? Promise.reject(new Error("the model is not loaded")));
      const stream = streams.get(request.stream) ?? newStream();
      streams.set(request.stream, stream);
      reply({ type: "scored", id: request.id, probability: await score(stream, request.frame) });
    } catch (error) {
      reply({
        type: "failed",
        id: request.id,
        message: error instanceof Error ? error.message : String(error),
      });
    }
  }
}

/**
 * Serves the parent's requests until it goes away. One request at a time, in the order they came:
 * a session's runs must not overlap, and a stream's frames must be scored in order.
 */
export function serveSilero(): Promise<number> {
  let queue: Promise<void> = Promise.resolve();
  process.on("message", (message) => {
    queue = queue.then(() => handle(message as SileroRequest));
  });
  return new Promise((resolve) => process.on("disconnect", () => resolve(0)));
}
