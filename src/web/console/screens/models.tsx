// The speech engine (stt_engine, with the remote engine's settings) and the whisper models:
// presets and imported files, their downloads (progress from /api/events) and the active one.
import { api } from "../api.ts";
import { useServerEvents } from "../events.ts";
import { useModelDownloads } from "../model-downloads.tsx";
import { SettingField } from "../setting-field.tsx";
import { toast } from "../toast.tsx";
import { ErrorText, Screen, useAction, useResource } from "../ui.tsx";
import { ModelCard } from "./model-card.tsx";

const engineText: Record<string, { title: string; text: string }> = {
  whisper: {
    title: "Whisper (on this machine)",
    text: "whisper.cpp runs here with the model chosen below. Accurate, 99 languages with a multilingual model; needs one model download.",
  },
  sphinx: {
    title: "PocketSphinx (on this machine)",
    text: "English only and far less accurate, but needs no model download (Debian packages libpocketsphinx3 and pocketsphinx-en-us).",
  },
  remote: {
    title: "Remote server",
    text: "An OpenAI-compatible transcription API: OpenAI, Groq, speaches or a whisper.cpp server. Audio leaves this machine.",
  },
};

const remoteKeys = ["remote_stt_base_url", "remote_stt_model", "remote_stt_api_key", "remote_stt_timeout_ms"];

function EngineChoice(props: { engines: string[]; current: string }) {
  const action = useAction();
  const choose = (engine: string) =>
    action.run(async () => {
      await api.put("/api/settings/{key}", { params: { key: "stt_engine" }, body: { value: engine } });
      toast(`Dictation now uses ${engineText[engine]?.title ?? engine}.`, "success");
    });
  return (
    <section aria-labelledby="engine-title">
      <h2 id="engine-title">Speech engine</h2>
      <ul class="engine-list">
        {props.engines.map((engine) => {
          const active = engine === props.current;
          return (
            <li key={engine} class={`panel engine${active ? " engine-active" : ""}`}>
              <div class="engine-title">
                <h3>{engineText[engine]?.title ?? engine}</h3>
                {active && <span class="badge ok">in use</span>}
              </div>
              <p class="small muted">{engineText[engine]?.text}</p>
              <button
                type="button"
                class={active ? undefined : "primary"}
                disabled={active || action.busy}
                aria-pressed={active}
                onClick={() => void choose(engine)}
              >
                {active ? `Using ${engine}` : `Use ${engine}`}
              </button>
            </li>
          );
        })}
      </ul>
      <ErrorText error={action.error} />
    </section>
  );
}

export function ModelsScreen() {
  const downloads = useModelDownloads({ onInstalled: (id) => toast(`${id} is installed.`, "success") });
  const schema = useResource("/api/settings/schema");
  const settings = useResource("/api/settings");
  useServerEvents(["settings.changed", "settings.deleted"], () => void settings.reload());
  const { overview } = downloads;
  const infos = schema.data?.items ?? [];
  const engineInfo = infos.find((info) => info.key === "stt_engine");
  const engines = (engineInfo?.schema.enum ?? []).map(String);
  const engine = String(settings.data?.stt_engine ?? "");
  const active = overview?.models.find((model) => model.id === overview.active);

  return (
    <Screen title="Models">
      <ErrorText error={downloads.error ?? schema.error ?? settings.error} />
      {settings.data && engines.length > 0 && <EngineChoice engines={engines} current={engine} />}
      {engine === "remote" && settings.data && (
        <section class="panel" aria-labelledby="remote-title">
          <h2 id="remote-title">Remote server</h2>
          {remoteKeys.map((key) => {
            const info = infos.find((candidate) => candidate.key === key);
            return info && <SettingField key={key} info={info} value={settings.data?.[key]} />;
          })}
        </section>
      )}
      {overview && (
        <section aria-labelledby="whisper-models-title">
          <h2 id="whisper-models-title">Whisper models</h2>
          <p>
            Active model: <strong>{overview.active}</strong>
            {engine !== "whisper" && engine && <span class="muted"> (used when the engine is whisper)</span>}
          </p>
          {!overview.activeInstalled && (
            <p class="notice">
              The active model, {overview.active}, is not installed
              {active?.preset ? ": download it below, or make an installed model active." : "."}
            </p>
          )}
          <ul class="model-list">
            {overview.models.map((listed) => {
              const model = downloads.model(listed.id) ?? listed;
              return (
                <ModelCard
                  key={model.id}
                  model={model}
                  downloads={downloads}
                  isDefault={model.id === overview.defaultModel}
                />
              );
            })}
          </ul>
          <p class="muted small models-source">
            Downloaded from <code>{overview.baseUrl}</code> into <code>{overview.modelsDir}</code>, checked
            against pinned sizes and SHA-256 sums. Other models: <code>svc models import</code>.
          </p>
        </section>
      )}
    </Screen>
  );
}
