import { AppError } from "../../../errors.ts";

/** The model object smart-whisper's addon hands back from `WhisperModel.load`. */
export interface NativeWhisperModel {
  readonly handle: unknown;
  readonly freed: boolean;
  free(): Promise<void>;
}

/** The part of smart-whisper's native addon svc uses (its JS wrapper is bypassed, see below). */
export interface WhisperAddon {
  WhisperModel: { load(file: string, gpu: boolean): Promise<NativeWhisperModel> };
  transcribe(
    handle: unknown,
    pcm: Float32Array,
    params: Record<string, unknown>,
    finish: (result: unknown) => void,
    progress: (segment: unknown) => void,
  ): void;
}

const HINT =
  "From source: run `npm install` (or `npm run postinstall`) in the svc checkout: it builds whisper.cpp with python3, make and g++. " +
  "The compiled binary unpacks the engine into the temporary folder: TMPDIR (or /tmp) must be writable and allow executables (not noexec).";

let addon: WhisperAddon | undefined;
let loadError: unknown;

/**
 * Loads the addon once. The path is a literal so `bun build --compile` embeds the .node file; the
 * package's own wrapper requires it through a computed path that only exists on the build machine.
 * whisper.cpp logs to stderr unless NODE_ENV is "production" when the addon initialises, and the
 * server's log is JSON lines, so it is loaded in production mode.
 */
export function loadWhisperAddon(): WhisperAddon {
  if (addon) return addon;
  if (loadError === undefined) {
    // Through a variable: `bun build` replaces a literal `process.env.NODE_ENV` read with a
    // constant ("development"), which would leave NODE_ENV set to that after the load.
    const env = process.env;
    const nodeEnv = env.NODE_ENV;
    env.NODE_ENV = "production";
    try {
      addon = require("smart-whisper/build/Release/smart-whisper.node") as WhisperAddon;
      return addon;
    } catch (error) {
      loadError = error;
    } finally {
      if (nodeEnv === undefined) delete env.NODE_ENV;
      else env.NODE_ENV = nodeEnv;
    }
  }
  const reason = loadError instanceof Error ? loadError.message : String(loadError);
  throw new AppError("engine_unavailable", `The whisper engine is not available: ${reason}`, {
    details: { engine: "whisper", hint: HINT },
    cause: loadError,
  });
}
