// Microphone capture for the Dictate screen: an AudioWorklet turns the microphone into 16 kHz
// mono chunks; stop() hands back a WAV file, so every browser (Safari included) sends the one
// format every svc decoder reads.
import { PlainError } from "../error-words.ts";
import { encodeWav } from "./wav.ts";

export const RECORDING_RATE = 16_000;

/** Why the microphone could not be used, as a sentence a person can act on. */
export class MicrophoneError extends PlainError {
  constructor(
    readonly reason: "insecure" | "refused" | "missing" | "busy" | "failed",
    message: string,
    /** The browser's own words, for Details. */
    cause?: unknown,
  ) {
    super(message, cause === undefined ? [] : [["The browser said", String(cause)]]);
    this.name = "MicrophoneError";
  }
}

function microphoneError(error: unknown): MicrophoneError {
  const name = error instanceof DOMException ? error.name : "";
  if (name === "NotAllowedError" || name === "SecurityError")
    return new MicrophoneError(
      "refused",
      "Microphone access was refused. Allow the microphone for this site in the browser's settings, then try again.",
    );
  if (name === "NotFoundError" || name === "OverconstrainedError")
    return new MicrophoneError(
      "missing",
      "No microphone was found. Connect one, or transcribe a recording file.",
    );
  if (name === "NotReadableError" || name === "AbortError")
    return new MicrophoneError(
      "busy",
      "The microphone is in use by another program or could not be started. Close the other program and try again.",
    );
  return new MicrophoneError(
    "failed",
    "The microphone could not be started. Reload the page and try again, or transcribe a recording file.",
    error,
  );
}

export interface Recording {
  /** Stops capture and returns the WAV file (16 kHz, mono, 16-bit). */
  stop(): Promise<{ wav: Uint8Array<ArrayBuffer>; seconds: number }>;
  /** Stops capture and drops what was recorded. */
  cancel(): void;
}

/**
 * Starts recording from the default microphone. `onChunk` gets each 100 ms of 16 kHz samples as
 * it is captured (for live dictation). `onLevel` gets the peak level (0–1) of each
 * 100 ms chunk, for the meter.
 */
export async function startRecording(
  workletUrl: string,
  onLevel: (peak: number) => void,
  onChunk?: (samples: Float32Array<ArrayBuffer>) => void,
): Promise<Recording> {
  if (!window.isSecureContext || !navigator.mediaDevices?.getUserMedia) {
    throw new MicrophoneError(
      "insecure",
      "Browsers allow the microphone only on https or localhost. Open svc at http://localhost on this machine or through an https proxy, or transcribe a recording file below.",
    );
  }
  let stream: MediaStream;
  try {
    // The browser's voice processing is tuned for calls; its artefacts cost speech engines
    // accuracy, so they get the microphone as it is.
    stream = await navigator.mediaDevices.getUserMedia({
      audio: { channelCount: 1, echoCancellation: false, noiseSuppression: false, autoGainControl: false },
    });
  } catch (error) {
    throw microphoneError(error);
  }
  const context = new AudioContext();
  const release = () => {
    for (const track of stream.getTracks()) track.stop();
    void context.close();
  };
  try {
    await context.audioWorklet.addModule(workletUrl);
  } catch (error) {
    release();
    throw new MicrophoneError(
      "failed",
      "The recorder could not start. Reload the page and try again, or transcribe a recording file.",
      error,
    );
  }
  const source = context.createMediaStreamSource(stream);
  const node = new AudioWorkletNode(context, "svc-recorder", { numberOfInputs: 1, numberOfOutputs: 0 });
  const chunks: Float32Array[] = [];
  node.port.onmessage = (event: MessageEvent<{ samples: Float32Array<ArrayBuffer>; peak: number }>) => {
    chunks.push(event.data.samples);
    onChunk?.(event.data.samples);
    onLevel(event.data.peak);
  };
  source.connect(node);
  const finish = () => {
    source.disconnect();
    node.port.onmessage = null;
    release();
  };
  return {
    async stop() {
      // Let the last chunk in flight arrive before the microphone closes.
      await new Promise((resolve) => setTimeout(resolve, 120));
      finish();
      const frames = chunks.reduce((total, chunk) => total + chunk.length, 0);
      return { wav: encodeWav(chunks, RECORDING_RATE), seconds: frames / RECORDING_RATE };
    },
    cancel: finish,
  };
}
