import { useEffect, useRef, useState } from "preact/hooks";
import { type Answer, ApiError, api } from "../api.ts";
import { type LiveConnection, type LiveText, openLive } from "../audio/live.ts";
import { type Recording, startRecording } from "../audio/recorder.ts";
import { useServerEvents } from "../events.ts";
import { DefaultModelOffer } from "../model-offer.tsx";
import { copyText, ErrorText, Screen } from "../ui.tsx";

type TranscribeResult = Answer<"post", "/api/transcribe">;
type ModelsOverview = Answer<"get", "/api/models">;
type Engine = Answer<"get", "/api/engines">["items"][number];

type Phase = "idle" | "starting" | "recording" | "sending";

const languages: [string, string][] = [
  ["", "As in Settings"],
  ["auto", "Detect"],
  ["en", "English"],
  ["de", "German"],
  ["fr", "French"],
  ["es", "Spanish"],
  ["it", "Italian"],
  ["pt", "Portuguese"],
  ["nl", "Dutch"],
  ["pl", "Polish"],
  ["sv", "Swedish"],
  ["ja", "Japanese"],
  ["zh", "Chinese"],
];

/** A remembered choice of this browser (the server's settings are the defaults). */
function usePreference(key: string): [string, (value: string) => void] {
  const [value, setValue] = useState(() => localStorage.getItem(`svc.${key}`) ?? "");
  return [
    value,
    (next) => {
      localStorage.setItem(`svc.${key}`, next);
      setValue(next);
    },
  ];
}

/** The sentence for a failed dictation. */
function dictationError(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  switch (error.code) {
    case "busy":
    case "engine_busy":
      return `svc is busy with other dictations. Try again${error.retryAfter ? ` in ${error.retryAfter} s` : " in a moment"}.`;
    case "unsupported_audio":
    case "invalid_audio":
      return `That file is not audio svc can read. ${error.message}`;
    case "missing_audio":
      return "Nothing was recorded. Check that the right microphone is selected and not muted.";
    default:
      return error.message;
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function DictateScreen() {
  const [phase, setPhase] = useState<Phase>("idle");
  const [level, setLevel] = useState(0);
  const [elapsed, setElapsed] = useState(0);
  const [result, setResult] = useState<TranscribeResult>();
  const [error, setError] = useState<unknown>();
  const [appContext, setAppContext] = usePreference("appContext");
  const [language, setLanguage] = usePreference("language");
  const [models, setModels] = useState<ModelsOverview>();
  const [engine, setEngine] = useState<string>();
  const [engines, setEngines] = useState<Engine[]>();
  const [dragging, setDragging] = useState(false);
  const recording = useRef<Recording | undefined>(undefined);
  // The live dictation the recording streams to, when svc offers one (GET /api/dictate).
  const live = useRef<LiveConnection | null>(null);
  const [liveText, setLiveText] = useState<LiveText>();
  const phaseRef = useRef(phase);
  phaseRef.current = phase;

  const loadModels = () => {
    api.get("/api/models").then(setModels, () => {});
    api.get("/api/engines").then(
      (list) => setEngines(list.items),
      () => {},
    );
    api.get("/api/settings/{key}", { params: { key: "stt_engine" } }).then(
      (setting) => setEngine(String(setting.value)),
      () => {},
    );
  };
  useEffect(loadModels, []);
  useServerEvents(["models.installed", "models.deleted", "settings.changed"], loadModels);
  // The engine whose models svc downloads offers its active one; any other says what it lacks.
  const needsModel = models !== undefined && engine === models.engine && !models.activeInstalled;
  const current = engines?.find((candidate) => candidate.id === engine);
  const missing = needsModel ? undefined : current?.models.find((model) => model.active && !model.installed);

  async function transcribe(body: Blob | Uint8Array<ArrayBuffer>, type: string) {
    setPhase("sending");
    setError(undefined);
    const headers: Record<string, string> = { "content-type": type };
    if (appContext.trim()) headers["x-app-context"] = appContext.trim();
    if (language) headers["x-language"] = language;
    try {
      setResult(await api.post("/api/transcribe", { headers, raw: body }));
    } catch (caught) {
      setError(caught);
      if (caught instanceof ApiError && caught.code === "model_unavailable") loadModels();
    } finally {
      setPhase("idle");
    }
  }

  async function start() {
    if (phaseRef.current !== "idle") return;
    setPhase("starting");
    setError(undefined);
    setLevel(0);
    setElapsed(0);
    setLiveText(undefined);
    try {
      const workletUrl = document.getElementById("app")?.dataset.worklet ?? "";
      // Text while speaking where svc can: the socket opens while the microphone starts, and the
      // audio captured before it is ready is sent as soon as it is.
      let pending: Float32Array<ArrayBuffer>[] | null = [];
      const opening = openLive(
        { language: language || undefined, appContext: appContext.trim() || undefined },
        setLiveText,
      );
      recording.current = await startRecording(workletUrl, setLevel, (samples) => {
        if (pending) pending.push(samples);
        else live.current?.send(samples);
      });
      const connection = await opening;
      for (const samples of connection ? pending : []) connection?.send(samples);
      pending = null;
      live.current = connection;
      setPhase("recording");
    } catch (caught) {
      live.current?.cancel();
      live.current = null;
      recording.current?.cancel();
      recording.current = undefined;
      setError(caught);
      setPhase("idle");
    }
  }

  async function stop() {
    const current = recording.current;
    if (!current || phaseRef.current !== "recording") return;
    recording.current = undefined;
    setPhase("sending");
    const { wav } = await current.stop();
    setLevel(0);
    const connection = live.current;
    live.current = null;
    if (connection) {
      try {
        setResult(await connection.finish<TranscribeResult>());
        setError(undefined);
        setPhase("idle");
        return;
      } catch {
        // The live dictation failed: the whole recording is uploaded instead, and its answer (or
        // its error's sentence) is what the person sees.
      }
    }
    await transcribe(wav, "audio/wav");
  }

  // The elapsed time while recording.
  useEffect(() => {
    if (phase !== "recording") return;
    const started = performance.now();
    const timer = setInterval(() => setElapsed(performance.now() - started), 100);
    return () => clearInterval(timer);
  }, [phase]);

  // Hold Space to talk (when no field or button has the focus); a recording is dropped on leave.
  useEffect(() => {
    const typing = (target: EventTarget | null) =>
      target instanceof HTMLElement &&
      target.closest("input, textarea, select, button, a, [contenteditable]");
    const down = (event: KeyboardEvent) => {
      if (event.code !== "Space" || event.repeat || typing(event.target)) return;
      event.preventDefault();
      void start();
    };
    const up = (event: KeyboardEvent) => {
      if (event.code !== "Space" || typing(event.target)) return;
      event.preventDefault();
      void stop();
    };
    addEventListener("keydown", down);
    addEventListener("keyup", up);
    return () => {
      removeEventListener("keydown", down);
      removeEventListener("keyup", up);
      recording.current?.cancel();
    };
  }, []);

  const onFile = (file: File | undefined) => {
    if (file) void transcribe(file, file.type || "application/octet-stream");
  };

  const busy = phase === "sending" || phase === "starting";
  return (
    <Screen title="Dictate">
      {needsModel && <DefaultModelOffer onInstalled={loadModels} />}
      {current && missing && (
        <p class="notice" role="status">
          {current.title} cannot dictate yet. {missing.description} See <a href="/models">Models</a>.
        </p>
      )}
      <section
        aria-label="Recorder (you can drop a recording file here)"
        class={`panel dictate ${dragging ? "dragging" : ""}`}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          onFile(event.dataTransfer?.files[0]);
        }}
      >
        <button
          type="button"
          class={`record ${phase === "recording" ? "recording" : ""}`}
          aria-pressed={phase === "recording"}
          disabled={busy}
          onClick={() => void (phase === "recording" ? stop() : start())}
        >
          {phase === "recording" ? "Stop" : phase === "sending" ? "Transcribing…" : "Record"}
        </button>
        <p class="muted small">Click to start and stop, or hold Space to talk.</p>
        <div class="row record-status">
          <label class="grow">
            <span class="visually-hidden">Input level</span>
            <meter
              min={0}
              max={1}
              low={0.02}
              high={0.9}
              optimum={0.3}
              value={level}
              aria-label="Input level"
            />
          </label>
          <span class="elapsed" aria-live="off">
            {seconds(elapsed)}
          </span>
        </div>
        <div class="row options">
          <div class="grow">
            <label for="app-context">App context</label>
            <input
              id="app-context"
              value={appContext}
              placeholder="e.g. Slack, or leave empty"
              onInput={(event) => setAppContext(event.currentTarget.value)}
              aria-describedby="app-context-hint"
            />
            <p class="hint small muted" id="app-context-hint">
              The app you will paste into: svc applies the format that matches it.
            </p>
          </div>
          <div>
            <label for="language">Language</label>
            <select
              id="language"
              value={language}
              onChange={(event) => setLanguage(event.currentTarget.value)}
            >
              {languages.map(([code, name]) => (
                <option key={code} value={code}>
                  {name}
                </option>
              ))}
            </select>
          </div>
        </div>
        <div class="row file-row">
          <label for="audio-file" class="button">
            Transcribe a file…
          </label>
          <input
            id="audio-file"
            class="visually-hidden"
            type="file"
            accept="audio/*,video/webm,video/mp4,.wav,.webm,.ogg,.opus,.mp3,.flac,.m4a"
            onChange={(event) => {
              onFile(event.currentTarget.files?.[0]);
              event.currentTarget.value = "";
            }}
          />
          <span class="muted small">or drop a recording here</span>
        </div>
      </section>
      {phase !== "idle" && liveText && (
        <p class="live-text" id="live-text" aria-live="polite">
          {liveText.committed.join(" ")}
          {liveText.partial && <span class="muted"> {liveText.partial}</span>}
        </p>
      )}
      {error !== undefined && <ErrorText error={new Error(dictationError(error))} />}
      {result && (
        <section class="panel result" aria-labelledby="result-title">
          <div class="row">
            <h2 id="result-title" class="grow">
              Text
            </h2>
            <button type="button" onClick={() => void copyText(result.text)} disabled={!result.text}>
              Copy
            </button>
          </div>
          <p class="result-text" id="result-text">
            {result.text || <span class="muted">No speech was heard.</span>}
          </p>
          <p class="muted small">
            {seconds(result.audioDurationMs)} of audio in {seconds(result.durationMs)} · {result.engine}{" "}
            {result.model}
            {result.format ? ` · format ${result.format.label}` : ""}
            {result.historyId === null ? " · not saved (history paused)" : ""}
          </p>
          <dl class="timings small">
            {Object.entries(result.timings).map(([stage, ms]) => (
              <div key={stage}>
                <dt>{stage}</dt>
                <dd>{Math.round(ms)} ms</dd>
              </div>
            ))}
          </dl>
        </section>
      )}
    </Screen>
  );
}
