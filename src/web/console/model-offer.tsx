// Whether the chosen engine can dictate, and the first-run card when it cannot: no speech model is
// installed, so offer the default one. Nothing is downloaded until the person presses the button.
import { api } from "./api.ts";
import { useServerEvents } from "./events.ts";
import { ModelDownload, type ModelsOverview, useModelDownloads } from "./model-downloads.tsx";
import { toast } from "./toast.tsx";
import { ErrorText, formatBytes, useAction, useResource } from "./ui.tsx";

/** The active model when it is a preset (on a first run it is the default), else the default. */
const targetOf = (overview: ModelsOverview | undefined) =>
  overview?.models.find((model) => model.id === overview.active && model.preset)?.id ??
  overview?.defaultModel;

/**
 * What works without this download: the engines that can dictate now, a server elsewhere, a model
 * file carried in. Offline or air-gapped, the first-run card still leads to a working dictation.
 */
function OtherWays(props: { current: string | undefined; onChosen: () => void }) {
  const engines = useResource("/api/engines");
  const choose = useAction();
  const ready = (engines.data?.items ?? []).filter(
    (engine) => engine.id !== props.current && engine.models.some((model) => model.installed),
  );
  const use = (engine: (typeof ready)[number]) =>
    choose.run(async () => {
      await api.put("/api/settings/{key}", { params: { key: "stt_engine" }, body: { value: engine.id } });
      toast(`Dictation now uses ${engine.title}.`, "success");
      props.onChosen();
    });
  return (
    <div class="other-ways">
      <h3>Other ways to dictate</h3>
      <ul>
        {ready.map((engine) => (
          <li key={engine.id}>
            <button type="button" disabled={choose.busy} onClick={() => void use(engine)}>
              Use {engine.title}
            </button>{" "}
            <span class="muted small">{engine.description}</span>
          </li>
        ))}
        <li>
          A speech server elsewhere (OpenAI-compatible, such as another svc): choose it in{" "}
          <a href="/models">Models</a>.
        </li>
        <li>
          No internet here: copy a model file (for example <code>ggml-base.en.bin</code>) to this machine and
          run <code>svc models import FILE</code>.
        </li>
      </ul>
      <ErrorText error={choose.error} />
    </div>
  );
}

function DefaultModelOffer(props: { onInstalled?: () => void; engine: string | undefined }) {
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
          <ModelDownload
            model={model}
            downloads={downloads}
            label={model.lastFailure ? `Try the download of ${model.id} again` : `Download ${model.id}`}
            primary
          />
          <OtherWays current={props.engine} onChosen={() => props.onInstalled?.()} />
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
  const active = chosen?.models.find((model) => model.active);
  return {
    download,
    missing: missing && { engine: chosen?.title ?? "", model: missing },
    /** The engine and model a dictation uses now, once known. */
    current: chosen && { id: chosen.id, engine: chosen.title, model: active?.id },
    /** false only when it is known that nothing can transcribe (so Record waits). */
    ready: chosen === undefined || models.data === undefined || (!download && !missing),
    reload,
  };
}

/** The first-run offer, or a sentence on what the chosen engine lacks; nothing when it can dictate. */
export function SpeechReadiness(props: { readiness: ReturnType<typeof useSpeechReadiness> }) {
  const { download, missing, reload, current } = props.readiness;
  if (download) return <DefaultModelOffer onInstalled={reload} engine={current?.id} />;
  if (!missing) return null;
  return (
    <p class="notice" role="status">
      {missing.engine} cannot dictate yet. {missing.model.description} See <a href="/models">Models</a>.
    </p>
  );
}
