import { useEffect, useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { useDictation } from "../audio/dictation.ts";
import { useServerEvents } from "../events.ts";
import { languageName } from "../language-names.ts";
import { SpeechReadiness, useSpeechReadiness } from "../model-offer.tsx";
import { copyText, ErrorText, Screen, useResource } from "../ui.tsx";

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

/** The languages the selected engine's active model speaks: the `language` setting's examples. */
function useSpokenLanguages(): string[] {
  const schema = useResource("/api/settings/schema");
  useServerEvents(["settings.changed", "models.installed", "models.deleted"], () => void schema.reload());
  return (schema.data?.items.find((item) => item.key === "language")?.schema.examples ?? []).map(String);
}

/**
 * Why the language a dictation would ask for (this browser's choice, else the setting) is one the
 * model cannot speak, before Record is pressed; undefined when it can, or when its list is unknown.
 */
function useLanguageProblem(chosen: string, spoken: readonly string[]): string | undefined {
  const setting = useResource("/api/settings/{key}", { params: { key: "language" } });
  useServerEvents(["settings.changed", "settings.deleted"], () => void setting.reload());
  const stored = setting.data?.value;
  const language = chosen || (typeof stored === "string" ? stored : "auto");
  const primary = language.split(/[-_]/)[0]?.toLowerCase() ?? "";
  if (primary === "auto" || spoken.length === 0 || spoken.includes(primary)) return undefined;
  const said = languageName(language);
  const where = chosen ? "below" : "below, or in Settings";
  return `This model does not speak ${said}: choose another language ${where}, or a multilingual model in Models.`;
}

/**
 * The languages to offer: the `language` setting's examples in GET /api/settings/schema, named in
 * the reader's language, after "As in Settings" and "Detect".
 */
function useLanguageChoices(codes: readonly string[]): [string, string][] {
  const spoken = codes
    .map(String)
    .filter((code) => code !== "auto")
    .map((code): [string, string] => [code, languageName(code)])
    .sort(([, a], [, b]) => a.localeCompare(b));
  return [["", "As in Settings"], ["auto", "Detect"], ...spoken];
}

/** Hold Space to talk (when no field or button has the focus). */
function useHoldToTalk(start: () => void, stop: () => void) {
  useEffect(() => {
    // Space types in a field and presses any other button; on the Record button itself, where Tab
    // lands, it is hold-to-talk like everywhere else (its own click on release is held back).
    const typing = (target: EventTarget | null) =>
      target instanceof HTMLElement &&
      !target.classList.contains("record") &&
      target.closest("input, textarea, select, button, a, [contenteditable]");
    const down = (event: KeyboardEvent) => {
      if (event.code !== "Space" || event.repeat || typing(event.target)) return;
      event.preventDefault();
      start();
    };
    const up = (event: KeyboardEvent) => {
      if (event.code !== "Space" || typing(event.target)) return;
      event.preventDefault();
      stop();
    };
    addEventListener("keydown", down);
    addEventListener("keyup", up);
    return () => {
      removeEventListener("keydown", down);
      removeEventListener("keyup", up);
    };
  }, [start, stop]);
}

/** A touch screen, where there is no Space bar to hold. */
const coarsePointer = typeof matchMedia === "function" && matchMedia("(pointer: coarse)").matches;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
/** Under 10 s in milliseconds (an engine's 614 ms is not "0.6 s"), else in seconds. */
const duration = (ms: number) => (ms < 10_000 ? `${Math.round(ms)} ms` : seconds(ms));

/** A kept recording as a file to save. */
function SaveRecording(props: { recording: Blob }) {
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    const made = URL.createObjectURL(props.recording);
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [props.recording]);
  return (
    <a class="button" href={url} download="svc-recording.wav">
      Save the recording
    </a>
  );
}

/** What an answer with no text means: nothing heard, or a plugin that handled or stopped it. */
function emptyResult(result: { disposition: string; reason: string | null; consumedBy: string | null }) {
  const why = result.reason ? `: ${result.reason}` : "";
  if (result.disposition === "suppressed")
    return `Handled by ${result.consumedBy ?? "a plugin"}${why}; nothing to deliver.`;
  if (result.disposition === "aborted") return `Stopped by ${result.consumedBy ?? "a plugin"}${why}.`;
  return "No speech was heard.";
}

export function DictateScreen() {
  const [appContext, setAppContext] = usePreference("appContext");
  const [language, setLanguage] = usePreference("language");
  const [dragging, setDragging] = useState(false);
  const readiness = useSpeechReadiness();
  const spoken = useSpokenLanguages();
  const languages = useLanguageChoices(spoken);
  const languageProblem = useLanguageProblem(language, spoken);
  const dictation = useDictation({
    language,
    appContext,
    onFailure: (error) => {
      if (error instanceof ApiError && error.code === "model_unavailable") readiness.reload();
    },
  });
  const {
    phase,
    level,
    elapsedMs,
    liveText,
    result,
    via,
    error,
    unsent,
    start,
    stop,
    transcribeFile,
    retry,
    discard,
  } = dictation;
  const { ready, current } = readiness;
  // Over plain http from another device the browser gives no microphone: said before Record is pressed.
  const noMicrophone = !window.isSecureContext || !navigator.mediaDevices?.getUserMedia;
  // Nothing can transcribe yet: Record waits, with the reason beside it.
  const startIfReady = () => (ready && !noMicrophone && !languageProblem ? start() : Promise.resolve());
  useHoldToTalk(startIfReady, stop);
  const onFile = (file: File | undefined) => {
    if (file) void transcribeFile(file);
  };

  const busy = phase === "sending" || phase === "starting";
  // The button stays focusable while busy (a disabled button drops the keyboard's focus).
  const recordUnavailable =
    busy || (phase === "idle" && (!ready || noMicrophone || languageProblem !== undefined));
  return (
    <Screen title="Dictate">
      <SpeechReadiness readiness={readiness} />
      {current && (
        <p class="small muted engine-line">
          Dictating with {current.engine}
          {current.model ? ` · ${current.model}` : ""} · <a href="/models">Change</a>
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
          aria-disabled={recordUnavailable ? "true" : undefined}
          aria-describedby="record-hint"
          onClick={() => {
            if (phase === "recording") void stop();
            else if (!recordUnavailable) void start();
          }}
        >
          {phase === "recording" ? "Stop" : phase === "sending" ? "Transcribing…" : "Record"}
        </button>
        <p class="muted small" id="record-hint">
          {noMicrophone && phase === "idle"
            ? "This browser gives svc no microphone here: browsers allow it only on https or on svc's own machine (http://localhost). Open svc through an https proxy (docs/install.md, HTTPS on your LAN), or transcribe a recording file below."
            : languageProblem && phase === "idle"
              ? languageProblem
              : ready || phase !== "idle"
                ? coarsePointer
                  ? "Tap to start and stop."
                  : "Click to start and stop, or hold Space to talk."
                : "Nothing can turn speech into text yet: install a speech model above, or choose another way to dictate."}
        </p>
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
            {seconds(elapsedMs)}
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
          <input
            id="audio-file"
            class="visually-hidden file-input"
            type="file"
            accept="audio/*,video/webm,video/mp4,.wav,.webm,.ogg,.opus,.mp3,.flac,.m4a"
            onChange={(event) => {
              onFile(event.currentTarget.files?.[0]);
              event.currentTarget.value = "";
            }}
          />
          <label for="audio-file" class="button">
            Transcribe a file…
          </label>
          <span class="muted small">or drop a recording here</span>
        </div>
      </section>
      {phase !== "idle" && liveText && (
        <p class="live-text" id="live-text" aria-live="polite">
          {liveText.committed.join(" ")}
          {liveText.partial && (
            <span class="provisional" title="Still listening: this part may change">
              {" "}
              {liveText.partial}
              <span class="visually-hidden"> (may still change)</span>
            </span>
          )}
        </p>
      )}
      {error !== undefined && <ErrorText error={error} />}
      {unsent && phase === "idle" && (
        <fieldset class="row unsent" aria-label="The recording that was not transcribed">
          <span class="grow small">Your recording is kept.</span>
          <button
            type="button"
            class="primary"
            onClick={() => ready && void retry()}
            aria-disabled={ready ? undefined : "true"}
          >
            Transcribe it again
          </button>
          <SaveRecording recording={unsent} />
          <button type="button" class="link" onClick={() => discard()}>
            Discard it
          </button>
        </fieldset>
      )}
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
          {/* Announced when it arrives: a screen reader hears the finished text. */}
          <p class="result-text" id="result-text" role="status" aria-live="polite">
            {result.text || <span class="muted">{emptyResult(result)}</span>}
          </p>
          <p class="muted small">
            {seconds(result.audioDurationMs)} of audio · engine {duration(result.timings.engine)} ·{" "}
            {via === "live"
              ? `text ${duration(result.durationMs)} after Stop`
              : `answered in ${duration(result.durationMs)}`}{" "}
            · {result.engine} {result.model}
            {result.format ? ` · format ${result.format.label}` : ""}
            {result.historyId === null && result.disposition === "deliver" && result.text
              ? " · not saved (history paused)"
              : ""}
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
