// Whether the chosen engine can dictate, and the first-run card when it cannot: no speech model is
// installed, so offer the default one. Nothing is downloaded until the person presses the button.
import { api } from "./api.ts";
import { useServerEvents } from "./events.ts";
import { ModelDownload, type ModelsOverview, useModelDownloads } from "./model-downloads.tsx";
import { ErrorText, formatBytes, useAction, useResource } from "./ui.tsx";

/** The active model when it is a preset (on a first run it is the default), else the default. */
const targetOf = (overview: ModelsOverview | undefined) =>
  overview?.models.find((model) => model.id === overview.active && model.preset)?.id ??
  overview?.defaultModel;

function DefaultModelOffer(props: { onInstalled?: () => void }) {
  const downloads = useModelDownloads({
    onInstalled: (id) => {
      if (id === targetOf(downloads.overview)) props.onInstalled?.();
    },
  });
  const activate = useAction();
  const { overview } = downloads;
  const target = targetOf(overview);
  const model = target ? downloads.model(target) : undefined;
  if (!overview || !model) return <ErrorText error={downloads.error} />;
  const noneInstalled = !overview.models.some((entry) => entry.installed);
  const use = () =>
    activate.run(async () => {
      await api.put("/api/settings/{key}", { params: { key: "stt_model" }, body: { value: model.id } });
      props.onInstalled?.();
    });
  return (
    <section class="panel model-offer" aria-labelledby="model-offer-title">
      <h2 id="model-offer-title">
        {noneInstalled
          ? "No speech model is installed"
          : `The speech model ${overview.active} is not installed`}
      </h2>
      {model.installed && model.active && <p role="status">{model.id} is installed: you can dictate now.</p>}
      {model.installed && !model.active && (
        <p>
          {model.id} is installed.{" "}
          <button type="button" class="primary" disabled={activate.busy} onClick={() => void use()}>
            Use {model.id}
          </button>
        </p>
      )}
      {!model.installed && (
        <>
          <p>
            svc needs a speech model to turn speech into text.{" "}
            {model.id === overview.defaultModel ? "The default, " : ""}
            <strong>{model.id}</strong>, is a {formatBytes(model.sizeBytes)} download, made once; after that
            svc works offline.
          </p>
          {model.description && <p class="muted small">{model.description}</p>}
          <ModelDownload model={model} downloads={downloads} label={`Download ${model.id}`} primary />
        </>
      )}
      <ErrorText error={activate.error} />
    </section>
  );
}

/**
 * What the chosen engine (`stt_engine`) still needs: a download of the models /api/models holds
 * when they are its models, or else its active model's own sentence (GET /api/engines).
 */
export function useSpeechReadiness() {
  const models = useResource("/api/models");
  const engine = useResource("/api/settings/{key}", { params: { key: "stt_engine" } });
  const engines = useResource("/api/engines");
  const reload = () => void Promise.all([models.reload(), engine.reload(), engines.reload()]);
  useServerEvents(["models.installed", "models.deleted", "settings.changed"], reload);
  const chosen = engines.data?.items.find((candidate) => candidate.id === engine.data?.value);
  const download =
    models.data !== undefined && chosen?.id === models.data.engine && !models.data.activeInstalled;
  const missing = download ? undefined : chosen?.models.find((model) => model.active && !model.installed);
  return { download, missing: missing && { engine: chosen?.title ?? "", model: missing }, reload };
}

/** The first-run offer, or a sentence on what the chosen engine lacks; nothing when it can dictate. */
export function SpeechReadiness(props: { readiness: ReturnType<typeof useSpeechReadiness> }) {
  const { download, missing, reload } = props.readiness;
  if (download) return <DefaultModelOffer onInstalled={reload} />;
  if (!missing) return null;
  return (
    <p class="notice" role="status">
      {missing.engine} cannot dictate yet. {missing.model.description} See <a href="/models">Models</a>.
    </p>
  );
}
