// Speech models as GET /api/models describes them, kept current by the models.* events, and the
// download control the first-run offer and the Models screen share.
import { useEffect, useRef, useState } from "preact/hooks";
import { type Answer, ApiError, api } from "./api.ts";
import { onConnectionChange, type ServerEvent, useServerEvents } from "./events.ts";
import { ErrorText, formatBytes, useAction, useResource } from "./ui.tsx";

export type ModelsOverview = Answer<"get", "/api/models">;
export type ModelEntry = ModelsOverview["models"][number];
export type DownloadState = ModelsOverview["downloads"][number];

export interface ModelDownloads {
  overview: ModelsOverview | undefined;
  error: unknown;
  /** The model with its live download state (events are newer than the last overview). */
  model(id: string): ModelEntry | undefined;
  /** POST /api/models/:id/pull; the events report what follows. */
  pull(id: string): Promise<void>;
  reload(): Promise<void>;
}

const isDownload = (event: ServerEvent): event is ServerEvent & DownloadState =>
  typeof event.id === "string" && typeof event.receivedBytes === "number";

/**
 * GET /api/models, with progress from models.progress events; models.installed, models.failed
 * and models.deleted reload it (a failure's sentence is the model's lastFailure there).
 */
export function useModelDownloads(options: { onInstalled?: (id: string) => void } = {}): ModelDownloads {
  const resource = useResource("/api/models");
  const { reload } = resource;
  const [live, setLive] = useState<Record<string, DownloadState | null>>({});
  const onInstalled = useRef(options.onInstalled);
  onInstalled.current = options.onInstalled;

  const settle = (id: string) => {
    void reload().then(() => setLive(({ [id]: _, ...rest }) => rest));
  };
  useServerEvents(["models.", "settings.changed"], (event) => {
    if (event.type === "settings.changed") {
      if (event.key === "stt_model") void reload();
      return;
    }
    const id = typeof event.id === "string" ? event.id : undefined;
    if (!id) return;
    if (event.type === "models.progress" && isDownload(event)) {
      setLive((old) => ({ ...old, [id]: event }));
    } else if (event.type === "models.installed") {
      settle(id);
      onInstalled.current?.(id);
    } else if (event.type === "models.failed" || event.type === "models.deleted") {
      settle(id);
    }
  });
  // Events missed while the socket was down are caught up from the overview.
  useEffect(() => onConnectionChange((connected) => connected && void reload()), [reload]);

  const model = (id: string): ModelEntry | undefined => {
    const entry = resource.data?.models.find((candidate) => candidate.id === id);
    if (!entry) return undefined;
    const download = live[id];
    if (download === undefined || entry.installed) return entry;
    return { ...entry, download, lastFailure: null };
  };

  const pull = async (id: string) => {
    const result = await api.post("/api/models/{id}/pull", { params: { id } });
    if (result.status === "installed") {
      await reload();
      onInstalled.current?.(id);
      return;
    }
    setLive((old) => ({ ...old, [id]: old[id] ?? result.download ?? null }));
  };

  return { overview: resource.data, error: resource.error, model, pull, reload };
}

/** "42 % · 61 MB of 148 MB", or what is known before the size is. */
function progressText(download: DownloadState): string {
  const received = formatBytes(download.receivedBytes);
  if (download.percent === null || !download.totalBytes) return `${received} received`;
  return `${download.percent}% · ${received} of ${formatBytes(download.totalBytes)}`;
}

/**
 * The download part of a model: a button (Download, or Resume after an interruption), then a
 * progress bar with its percentage, or the reason the last download failed.
 */
export function ModelDownload(props: {
  model: ModelEntry;
  downloads: ModelDownloads;
  label?: string;
  primary?: boolean;
}) {
  const { model, downloads } = props;
  const action = useAction();
  const labelId = `download-${model.id.replace(/[^a-zA-Z0-9_-]/g, "-")}`;
  if (model.installed) return null;
  if (model.download) {
    return (
      <div class="model-progress">
        <span id={labelId} class="small">
          Downloading {model.id}: <span class="progress-text">{progressText(model.download)}</span>
        </span>
        <progress
          max={100}
          value={model.download.percent ?? undefined}
          aria-label={`Download of ${model.id}`}
        />
      </div>
    );
  }
  const verb = model.partialBytes > 0 ? "Resume download of" : "Download";
  return (
    <div class="stack">
      <button
        type="button"
        class={props.primary ? "primary" : undefined}
        disabled={action.busy}
        onClick={() => void action.run(() => downloads.pull(model.id))}
      >
        {props.label ?? `${verb} ${model.id}`} ({formatBytes(model.sizeBytes)})
      </button>
      <ErrorText error={action.error} />
      {model.lastFailure && (
        <ErrorText error={new ApiError(0, model.lastFailure.code, model.lastFailure.message)} />
      )}
    </div>
  );
}
