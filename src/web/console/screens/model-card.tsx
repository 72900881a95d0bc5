// One whisper model on the Models screen: what it is, its state, and what can be done with it
// (download, cancel, make active, delete).
import { useEffect, useState } from "preact/hooks";
import { ApiError, api } from "../api.ts";
import { ModelDownload, type ModelDownloads, type ModelEntry } from "../model-downloads.tsx";
import { toast } from "../toast.tsx";
import { ConfirmButton, ErrorText, formatBytes, useAction } from "../ui.tsx";

function facts(model: ModelEntry): string {
  const parts = [formatBytes(model.sizeBytes)];
  if (model.languages) parts.push(model.languages === "en" ? "English only" : "99 languages");
  if (model.quantization) parts.push(model.quantization === "q5_1" ? "5-bit quantised" : "16-bit");
  if (!model.preset) parts.push("imported");
  return parts.join(" · ");
}

function State(props: { model: ModelEntry; isDefault: boolean }) {
  const { model } = props;
  return (
    <span class="model-badges">
      {model.active && <span class="badge ok">active</span>}
      {model.installed && <span class="badge ok">installed</span>}
      {model.download && <span class="badge">downloading</span>}
      {!model.download && model.lastFailure && <span class="badge error">failed</span>}
      {props.isDefault && <span class="badge muted-badge">default</span>}
    </span>
  );
}

export function ModelCard(props: { model: ModelEntry; downloads: ModelDownloads; isDefault: boolean }) {
  const { model, downloads } = props;
  const action = useAction();
  const [inUse, setInUse] = useState<ApiError | null>(null);
  // Once another model is active, the refusal no longer holds.
  useEffect(() => {
    if (!model.active) setInUse(null);
  }, [model.active]);
  const titleId = `model-${model.id.replace(/[^a-zA-Z0-9_-]/g, "-")}`;

  const activate = () =>
    action.run(async () => {
      await api.put("/api/settings/{key}", { params: { key: "stt_model" }, body: { value: model.id } });
      toast(`${model.id} is now the active model.`, "success");
      await downloads.reload();
    });
  const remove = (force: boolean) =>
    action.run(async () => {
      setInUse(null);
      try {
        await api.delete("/api/models/{id}", {
          params: { id: model.id },
          query: { force: force || undefined },
        });
      } catch (error) {
        if (error instanceof ApiError && error.code === "model_in_use") {
          setInUse(error);
          return;
        }
        throw error;
      }
      toast(model.installed ? `Deleted ${model.id}.` : `Stopped the download of ${model.id}.`, "success");
      await downloads.reload();
      // The button pressed is gone with what it deleted: the focus stays on this card.
      document.getElementById(titleId)?.focus();
    });

  return (
    <li class={`panel model-card${model.active ? " model-active" : ""}`} aria-labelledby={titleId}>
      <div class="model-head">
        <h3 id={titleId} tabIndex={-1}>
          {model.id}
        </h3>
        <State model={model} isDefault={props.isDefault} />
      </div>
      {model.description && <p class="model-description">{model.description}</p>}
      <p class="muted small">{facts(model)}</p>
      <ModelDownload model={model} downloads={downloads} />
      {!model.installed && !model.download && model.partialBytes > 0 && (
        <p class="small muted">
          {formatBytes(model.partialBytes)} of an interrupted download are kept; the download resumes from
          there.
        </p>
      )}
      <div class="row model-actions">
        {model.installed && !model.active && (
          <button type="button" class="primary" disabled={action.busy} onClick={() => void activate()}>
            Use {model.id}
          </button>
        )}
        {model.download && (
          <button type="button" disabled={action.busy} onClick={() => void remove(false)}>
            Cancel download
          </button>
        )}
        {(model.installed || (!model.download && model.partialBytes > 0)) && (
          <ConfirmButton
            label={model.installed ? `Delete ${model.id}` : "Discard partial download"}
            confirm={model.installed ? `Click again to delete ${model.id}` : "Click again to discard it"}
            disabled={action.busy}
            onConfirm={() => void remove(false)}
          />
        )}
      </div>
      <ErrorText error={action.error} />
      {inUse && (
        <div class="notice">
          <ErrorText error={inUse} />
          <p>
            Choose another installed model above first, or delete it anyway: dictation then fails until a
            model is chosen.
          </p>
          <ConfirmButton
            label={`Delete ${model.id} anyway`}
            confirm="Click again to delete the active model"
            disabled={action.busy}
            onConfirm={() => void remove(true)}
          />
        </div>
      )}
    </li>
  );
}
