// One dictation from the console as a state machine: idle → starting → recording → sending → idle.
// It owns the recorder, the live dictation socket and the upload that stands in for it: the
// Dictate screen only renders its state and calls start, stop and transcribeFile.
import { useEffect, useRef, useState } from "preact/hooks";
import { type Answer, api } from "../api.ts";
import { type LiveConnection, type LiveText, openLive } from "./live.ts";
import { type Recording, startRecording } from "./recorder.ts";

export type TranscribeResult = Answer<"post", "/api/transcribe">;

export type Phase = "idle" | "starting" | "recording" | "sending";

export interface DictationState {
  phase: Phase;
  /** The peak of the last 100 ms of input (0–1), for the meter. */
  level: number;
  /** Time since the recording began. */
  elapsedMs: number;
  /** What live dictation has recognised so far while recording. */
  liveText?: LiveText;
  /** The last finished text; kept while the next dictation runs, dropped when it fails. */
  result?: TranscribeResult;
  /** How the result came: streamed while speaking (its durationMs is the wait after Stop), or uploaded. */
  via?: "live" | "upload";
  error?: unknown;
  /** A recording whose transcription failed: kept, to try again or to save, never lost. */
  unsent?: Blob;
}

type Event =
  | { type: "start" }
  | { type: "recording" }
  | { type: "level"; peak: number }
  | { type: "tick"; elapsedMs: number }
  | { type: "live"; text: LiveText }
  | { type: "send" }
  | { type: "done"; result: TranscribeResult; via: "live" | "upload" }
  | { type: "failed"; error: unknown; unsent?: Blob }
  | { type: "discard" };

const idle: DictationState = { phase: "idle", level: 0, elapsedMs: 0 };

// A recording that could not be transcribed outlives the screen: a person who follows the offered
// fix (Models → Use PocketSphinx → back) finds it still there, until it is sent or discarded.
let kept: Blob | undefined;

function next(state: DictationState, event: Event): DictationState {
  switch (event.type) {
    case "start":
      return { ...state, phase: "starting", level: 0, elapsedMs: 0, liveText: undefined, error: undefined };
    case "recording":
      return { ...state, phase: "recording" };
    case "level":
      return { ...state, level: event.peak };
    case "tick":
      return { ...state, elapsedMs: event.elapsedMs };
    case "live":
      return { ...state, liveText: event.text };
    case "send":
      return { ...state, phase: "sending", level: 0, error: undefined };
    case "done":
      return {
        ...state,
        phase: "idle",
        result: event.result,
        via: event.via,
        error: undefined,
        unsent: undefined,
      };
    case "failed":
      // The error stands alone: the text above it would read as this attempt's.
      return {
        ...state,
        phase: "idle",
        result: undefined,
        via: undefined,
        error: event.error,
        unsent: event.unsent ?? state.unsent,
      };
    case "discard":
      return { ...state, unsent: undefined, error: undefined };
  }
}

export interface DictationMachineOptions {
  /** A language code for this browser's dictations; empty for the `language` setting. */
  language: string;
  /** The app the text is for (which format applies); empty for none. */
  appContext: string;
  /** Called with each failure (the screen reloads the model state on `model_unavailable`). */
  onFailure?: (error: unknown) => void;
}

export interface DictationMachine extends DictationState {
  /** Opens the microphone and, where svc offers it, a live dictation; from idle only. */
  start(): Promise<void>;
  /** Ends the recording: the live dictation's final text, or else the whole recording uploaded. */
  stop(): Promise<void>;
  /** Uploads a recording file to POST /api/transcribe; from idle only. */
  transcribeFile(file: Blob): Promise<void>;
  /** Sends the kept recording (`unsent`) again; from idle only. */
  retry(): Promise<void>;
  /** Drops the kept recording. */
  discard(): void;
}

type Actions = Pick<DictationMachine, "start" | "stop" | "transcribeFile" | "retry" | "discard">;

/** The machine itself, outside Preact: `render` gets each new state. */
function createDictationMachine(
  render: (state: DictationState) => void,
  options: () => DictationMachineOptions,
  initial: DictationState,
) {
  let state = initial;
  let recording: Recording | undefined;
  // The live dictation the recording streams to, when svc offers one (GET /api/dictate).
  let live: LiveConnection | null = null;
  // Stop pressed (or Space released) while the microphone was still starting: stop once it has.
  let stopWanted = false;
  const emit = (event: Event) => {
    state = next(state, event);
    kept = state.unsent;
    render(state);
  };
  const fail = (error: unknown, unsent?: Blob) => {
    emit({ type: "failed", error, unsent });
    options().onFailure?.(error);
  };

  /** Uploads `body`; a recording (`keep`) that fails stays in `unsent`. */
  const upload = async (body: Blob, keep: boolean) => {
    emit({ type: "send" });
    const { language, appContext } = options();
    const headers: Record<string, string> = { "content-type": body.type || "application/octet-stream" };
    if (appContext.trim()) headers["x-app-context"] = appContext.trim();
    if (language) headers["x-language"] = language;
    try {
      const result = await api.post("/api/transcribe", { headers, raw: body });
      emit({ type: "done", result, via: "upload" });
    } catch (error) {
      fail(error, keep ? body : undefined);
    }
  };

  const start = async () => {
    if (state.phase !== "idle") return;
    stopWanted = false;
    emit({ type: "start" });
    const { language, appContext } = options();
    // Text while speaking where svc can: the socket opens while the microphone starts, and the
    // audio captured before it is ready is sent as soon as it is.
    let pending: Float32Array<ArrayBuffer>[] | null = [];
    const opening = openLive(
      { language: language || undefined, appContext: appContext.trim() || undefined },
      (text) => emit({ type: "live", text }),
    );
    try {
      const workletUrl = document.getElementById("app")?.dataset.worklet ?? "";
      recording = await startRecording(
        workletUrl,
        (peak) => emit({ type: "level", peak }),
        (samples) => {
          if (pending) pending.push(samples);
          else live?.send(samples);
        },
      );
      const connection = await opening;
      for (const samples of connection ? pending : []) connection?.send(samples);
      pending = null;
      live = connection;
      emit({ type: "recording" });
      if (stopWanted) await stop();
    } catch (error) {
      void opening.then((connection) => connection?.cancel());
      recording?.cancel();
      recording = undefined;
      fail(error);
    }
  };

  const stop = async () => {
    if (state.phase === "starting") stopWanted = true;
    const taken = recording;
    if (!taken || state.phase !== "recording") return;
    recording = undefined;
    emit({ type: "send" });
    const { wav } = await taken.stop();
    const connection = live;
    live = null;
    if (connection) {
      try {
        emit({ type: "done", result: await connection.finish(), via: "live" });
        return;
      } catch {
        // The live dictation failed: the whole recording is uploaded instead, and its answer (or
        // its error's sentence) is what the person sees.
      }
    }
    await upload(new Blob([wav], { type: "audio/wav" }), true);
  };

  const transcribeFile = async (file: Blob) => {
    if (state.phase !== "idle") return;
    await upload(file, false);
  };

  const retry = async () => {
    if (state.phase !== "idle" || !state.unsent) return;
    await upload(state.unsent, true);
  };

  const discard = () => emit({ type: "discard" });

  const actions: Actions = { start, stop, transcribeFile, retry, discard };
  return {
    actions,
    tick: (elapsedMs: number) => emit({ type: "tick", elapsedMs }),
    /** Drops a recording under way and its live dictation. */
    cancel() {
      recording?.cancel();
      live?.cancel();
    },
  };
}

export function useDictation(options: DictationMachineOptions): DictationMachine {
  const [initial] = useState<DictationState>(() => (kept ? { ...idle, unsent: kept } : idle));
  const [state, setState] = useState(initial);
  const latest = useRef(options);
  latest.current = options;
  const [machine] = useState(() => createDictationMachine(setState, () => latest.current, initial));

  // The elapsed time while recording.
  useEffect(() => {
    if (state.phase !== "recording") return;
    const started = performance.now();
    const timer = setInterval(() => machine.tick(performance.now() - started), 100);
    return () => clearInterval(timer);
  }, [state.phase, machine]);

  // Leaving the screen drops what is being recorded.
  useEffect(() => () => machine.cancel(), [machine]);

  return { ...state, ...machine.actions };
}
