// The speech engines (GET /api/engines; stt_engine chooses one, its own settings beside it) and
// the models of the engine that downloads them (GET /api/models; whisper's): presets and imported files, their downloads (progress from /api/events) and
// the active one.
import { useState } from "preact/hooks";
import { type Answer, api } from "../api.ts";
import { useServerEvents } from "../events.ts";
import { useModelDownloads } from "../model-downloads.tsx";
import { SettingField } from "../setting-field.tsx";
import { toast } from "../toast.tsx";
import { ErrorText, Screen, useAction, useResource } from "../ui.tsx";
import { ModelCard } from "./model-card.tsx";

type Engine = Answer<"get", "/api/engines">["items"][number];
type SettingInfo = Answer<"get", "/api/settings/schema">["items"][number];

/** Whether the engine could dictate now: its active model is there (a remote server is set). */
const canDictate = (engine: Engine) => engine.models.some((model) => model.active && model.installed);

function EngineChoice(props: {
  engines: Engine[];
  current: string;
  settingsOf: (engine: Engine) => SettingInfo[];
  values: Record<string, unknown>;
}) {
  const action = useAction();
  // An engine that cannot dictate yet is set up first, in place, and chosen only once it can; it
  // is tried (a second of silence, its model loaded or its server asked) before the switch, so a
  // wrong URL or key shows here rather than in the next dictation.
  const [settingUp, setSettingUp] = useState<string>();
  const [checking, setChecking] = useState<string>();
  const [failed, setFailed] = useState<string>();
  const choose = (engine: Engine) => {
    setChecking(engine.id);
    setFailed(undefined);
    return action
      .run(async () => {
        try {
          await api.post("/api/engines/{id}/check", { params: { id: engine.id } });
        } catch (error) {
          setFailed(engine.id);
          throw error;
        }
        await api.put("/api/settings/{key}", { params: { key: "stt_engine" }, body: { value: engine.id } });
        toast(`Dictation now uses ${engine.title}.`, "success");
      })
      .finally(() => setChecking(undefined));
  };
  return (
    <section aria-labelledby="engine-title">
      <h2 id="engine-title">Speech engine</h2>
      <ul class="engine-list">
        {props.engines.map((engine) => {
          const active = engine.id === props.current;
          return (
            <li key={engine.id} class={`panel engine${active ? " engine-active" : ""}`}>
              <div class="engine-title">
                <h3>{engine.title}</h3>
                {active && <span class="badge ok">in use</span>}
              </div>
              <p class="small muted">{engine.description}</p>
              {active || canDictate(engine) ? (
                <button
                  type="button"
                  class={active ? undefined : "primary"}
                  disabled={active || action.busy}
                  aria-pressed={active}
                  onClick={() => void choose(engine)}
                >
                  {active
                    ? `Using ${engine.title}`
                    : checking === engine.id
                      ? `Trying ${engine.title}…`
                      : `Use ${engine.title}`}
                </button>
              ) : (
                <button
                  type="button"
                  aria-expanded={settingUp === engine.id}
                  onClick={() => setSettingUp(settingUp === engine.id ? undefined : engine.id)}
                >
                  Set up {engine.title}
                </button>
              )}
              {failed === engine.id && (
                <div class="engine-check-failed">
                  <p class="small">{engine.title} did not answer, so dictation stays as it is.</p>
                  <ErrorText error={action.error} />
                </div>
              )}
              {!active && ((!canDictate(engine) && settingUp === engine.id) || failed === engine.id) && (
                <div class="engine-setup">
                  <p class="small">{engine.models.find((model) => model.active)?.description}</p>
                  {props.settingsOf(engine).map((info) => (
                    <SettingField key={info.key} info={info} value={props.values[info.key]} />
                  ))}
                </div>
              )}
            </li>
          );
        })}
      </ul>
      {!failed && <ErrorText error={action.error} />}
    </section>
  );
}

export function ModelsScreen() {
  const downloads = useModelDownloads({ onInstalled: (id) => toast(`${id} is installed.`, "success") });
  const engines = useResource("/api/engines");
  const schema = useResource("/api/settings/schema");
  const settings = useResource("/api/settings");
  useServerEvents(["settings.changed", "settings.deleted"], () => {
    void settings.reload();
    void engines.reload();
  });
  const { overview } = downloads;
  const engine = String(settings.data?.stt_engine ?? "");
  const current = engines.data?.items.find((candidate) => candidate.id === engine);
  // The chosen engine's own settings (the schema's group named by its id); the rest are in Settings.
  const own = schema.data?.items.filter((info) => info.group === engine && !info.advanced) ?? [];
  const active = overview?.models.find((model) => model.id === overview.active);

  return (
    <Screen title="Models">
      <ErrorText error={downloads.error ?? engines.error ?? schema.error ?? settings.error} />
      {settings.data && engines.data && (
        <EngineChoice
          engines={engines.data.items}
          current={engine}
          settingsOf={(candidate) =>
            schema.data?.items.filter((info) => info.group === candidate.id && !info.advanced) ?? []
          }
          values={settings.data}
        />
      )}
      {current && own.length > 0 && settings.data && (
        <section class="panel" aria-labelledby="engine-settings-title">
          <h2 id="engine-settings-title">{current.title}</h2>
          {own.map((info) => (
            <SettingField key={info.key} info={info} value={settings.data?.[info.key]} />
          ))}
          <p class="muted small">
            More in <a href="/settings">Settings</a>.
          </p>
        </section>
      )}
      {overview && (
        <section aria-labelledby="engine-models-title">
          {/* The models of the engine whose store GET /api/models describes (whisper's today). */}
          <h2 id="engine-models-title">
            {engines.data?.items.find((item) => item.id === overview.engine)?.title ?? overview.engine}:
            models
          </h2>
          <p>
            Active model: <strong>{overview.active}</strong>
            {engine !== overview.engine && engine && (
              <span class="muted"> (used when the engine is {overview.engine})</span>
            )}
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
