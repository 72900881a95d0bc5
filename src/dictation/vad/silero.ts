// Silero VAD v6 (MIT) run by ONNX Runtime's WebAssembly build. Both files are embedded in the
// compiled binary; the native onnxruntime-node cannot be, as its addon needs a 45 MB shared
// library beside it on disk. This module is imported only when the detector is first needed.
import sileroModel from "@ricky0123/vad-web/dist/silero_vad_v6.onnx" with { type: "file" };
import ortWasm from "onnxruntime-web/ort-wasm-simd-threaded.wasm" with { type: "file" };
import { SAMPLE_RATE } from "../audio/rate.ts";
import { FRAME_SAMPLES, type FrameModel, type FrameScorer } from "./types.ts";

/** Silero sees the last 64 samples of the previous window before each new one. */
const CONTEXT = 64;
/** Its recurrent state: 2 × batch 1 × 128. */
const STATE = 2 * 128;
const PRIMING_FRAMES = 32;
/** The longest the detector scores before it lets the event loop take a turn. */
const sliceMs = 5;

let shared: Promise<FrameModel> | undefined;

/** The model, loaded once per process: a session holds no stream's state, so every detector shares it. */
export function loadSilero(): Promise<FrameModel> {
  shared ??= load();
  return shared;
}

async function load(): Promise<FrameModel> {
  const ort = await import("onnxruntime-web/wasm");
  // One thread: a threaded build would start Workers from a script URL a compiled binary lacks.
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmBinary = await Bun.file(ortWasm).arrayBuffer();
  const session = await ort.InferenceSession.create(await Bun.file(sileroModel).bytes(), {
    executionMode: "sequential",
    graphOptimizationLevel: "all",
  });
  const sampleRate = new ort.Tensor("int64", BigInt64Array.from([BigInt(SAMPLE_RATE)]), []);
  // One session serves every stream; its runs are queued so that they never overlap.
  let queue: Promise<unknown> = Promise.resolve();
  // Runs chain through promises, which never let the event loop in: after a few milliseconds of
  // scoring the queue steps aside for a turn, so requests are answered while audio floods in.
  let sliceStarted = performance.now();
  const turn = async () => {
    if (performance.now() - sliceStarted < sliceMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    sliceStarted = performance.now();
  };

  function scorer(): FrameScorer {
    const input = new Float32Array(CONTEXT + FRAME_SAMPLES);
    const state = new Float32Array(STATE);
    return {
      score(frame) {
        const run = queue.then(async () => {
          await turn();
          input.copyWithin(0, FRAME_SAMPLES);
          input.set(frame, CONTEXT);
          const out = await session.run({
            input: new ort.Tensor("float32", input, [1, input.length]),
            state: new ort.Tensor("float32", state, [2, 1, 128]),
            sr: sampleRate,
          });
          const { output, stateN } = out;
          if (!output || !stateN) throw new Error("the Silero model answered without output or stateN");
          state.set(stateN.data as Float32Array);
          return (output.data as Float32Array)[0] ?? 0;
        });
        queue = run.catch(() => {});
        return run;
      },
    };
  }

  // The engine compiles the WebAssembly quickly and optimises it once it runs: a second of
  // scoring here (about 0.2 s) spares the first dictation some 0.3–0.6 s.
  const warm = scorer();
  for (let i = 0; i < PRIMING_FRAMES; i++) await warm.score(new Float32Array(FRAME_SAMPLES));

  return { kind: "silero", scorer };
}
