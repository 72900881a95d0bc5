// The first-run card: no speech model is installed, so offer the default one. Nothing is
// downloaded until the person presses the button.
import { api } from "./api.ts";
import { ModelDownload, type ModelsOverview, useModelDownloads } from "./model-downloads.tsx";
import { ErrorText, formatBytes, useAction } from "./ui.tsx";

/** The active model when it is a preset (on a first run it is the default), else the default. */
const targetOf = (overview: ModelsOverview | undefined) =>
  overview?.models.find((model) => model.id === overview.active && model.preset)?.id ??
  overview?.defaultModel;

export function DefaultModelOffer(props: { onInstalled?: () => void }) {
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
