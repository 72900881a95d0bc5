// What a whisper engine is given and what it is, wherever it runs (engine.ts in this process,
// gpu-engine.ts in whisper's GPU process).
import type { DeviceChoice } from "../device-choice.ts";
import type { SpeechEngine } from "../types.ts";
import type { WhisperModelInfo } from "./ggml-model.ts";

export interface WhisperEngineOptions {
  modelPath: string;
  /**
   * CPU threads per transcription; default every core (`os.availableParallelism()`), or on a GPU at
   * most 4: the CPU then only samples tokens, and more threads would spin beside the GPU.
   */
  threads?: number;
  /** Shrink the encoder window to the clip length for clips under 30 s (see `audioCtxFor`); default on. */
  audioCtxScaling?: boolean;
  beamSize?: number;
  temperatureIncrement?: number;
  maxTokensPerSegment?: number;
  /** SVC_WHISPER_DEVICE; default `auto`. */
  device?: DeviceChoice;
}

export interface WhisperEngine extends SpeechEngine {
  readonly id: "whisper";
  readonly model: WhisperModelInfo;
  readonly threads: number;
}
