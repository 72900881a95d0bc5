import { AppError, notFound, reasonOf } from "../../../errors.ts";
import type { EventBus } from "../../../events.ts";
import type { Logger } from "../../../logger.ts";
import type { EngineId } from "../ids.ts";
import { type DownloadResult, downloadModel, presetTarget } from "./download.ts";
import type { DownloadFailure, DownloadState } from "./overview.ts";
import { describeModels, type ModelsOverview } from "./overview.ts";
import { findPreset } from "./presets.ts";
import type { DownloadProgress } from "./request.ts";
import { assertModelId, type InstalledModel, type ModelStore } from "./store.ts";

export interface PullResult {
  status: "installed" | "downloading";
  /** True when the pull joined a download that was already running. */
  joined: boolean;
  model?: InstalledModel;
  download?: DownloadState;
  /** Settles when the download does; rejections are already reported as `models.failed`. */
  done: Promise<DownloadResult | undefined>;
}

export interface ModelService {
  readonly store: ModelStore;
  overview(): ModelsOverview;
  /**
   * Starts downloading a preset in the background. A second pull of the same model joins the running
   * download (one HTTP transfer, the same events); another process holding the model's lock → 409.
   */
  pull(id: string): PullResult;
  /** Deletes a model (cancelling its download). The active model is refused with 409 unless `force`. */
  remove(id: string, options?: { force?: boolean }): Promise<void>;
  /** Cancels every download, keeping the partial files so a later pull resumes. */
  stop(): Promise<void>;
}

export interface ModelServiceDeps {
  /** The engine whose models these are. */
  engine: EngineId;
  /** The preset a fresh install offers. */
  defaultModel: string;
  store: ModelStore;
  baseUrl: string;
  events: EventBus;
  logger: Logger;
  /** The engine's active model (whisper's: the `stt_model` setting). */
  activeModel: () => string;
  /** Least time between two `models.progress` events for one model. */
  progressIntervalMs?: number;
  idleTimeoutMs?: number;
}

interface Job {
  state: DownloadState;
  controller: AbortController;
  done: Promise<DownloadResult | undefined>;
}

const percentOf = (progress: DownloadProgress) =>
  progress.totalBytes ? Math.floor((progress.receivedBytes / progress.totalBytes) * 100) : null;

export function createModelService(deps: ModelServiceDeps): ModelService {
  const { store, events, logger } = deps;
  const interval = deps.progressIntervalMs ?? 250;
  const jobs = new Map<string, Job>();
  const failures = new Map<string, DownloadFailure>();

  function start(id: string): Job {
    const preset = findPreset(id, store.presets);
    if (!preset) throw notFound(`"${id}" is not a preset model; GET /api/models lists them.`, { id });
    const controller = new AbortController();
    failures.delete(id);
    let lastEvent = Number.NEGATIVE_INFINITY;
    const state: DownloadState = {
      id,
      receivedBytes: store.partialBytes(id),
      totalBytes: preset.sizeBytes,
      bytesPerSecond: 0,
      resumedFrom: store.partialBytes(id),
      percent: null,
      startedAt: new Date().toISOString(),
    };
    state.percent = percentOf(state);
    const onProgress = (progress: DownloadProgress) => {
      Object.assign(state, progress, { percent: percentOf(progress) });
      const now = performance.now();
      if (now - lastEvent < interval) return;
      lastEvent = now;
      events.publish("models.progress", { ...state });
    };
    const target = presetTarget(preset, deps.baseUrl);
    const options = { signal: controller.signal, onProgress, idleTimeoutMs: deps.idleTimeoutMs };
    const running = downloadModel(store, target, options);
    logger.info("model download started", { id, url: target.url, resumeFrom: state.resumedFrom });
    const done = running.then(
      (result) => {
        events.publish("models.installed", {
          id,
          file: result.model.file,
          sizeBytes: result.model.sizeBytes,
        });
        logger.info("model installed", { id, verified: result.verified, resumedFrom: result.resumedFrom });
        return result;
      },
      (error: unknown) => {
        const cancelled = controller.signal.aborted;
        const code = cancelled ? "download_cancelled" : error instanceof AppError ? error.code : "internal";
        const message = cancelled ? "The download was cancelled." : reasonOf(error);
        failures.set(id, { code, message, at: new Date().toISOString() });
        // The code only: the message can name the mirror's URL. GET /api/models has it.
        events.publish("models.failed", { id, code });
        if (!cancelled) logger.warn("model download failed", { id, code, error });
        return undefined;
      },
    );
    const job: Job = { state, controller, done: done.finally(() => jobs.delete(id)) };
    jobs.set(id, job);
    return job;
  }

  return {
    store,
    overview: () =>
      describeModels({
        engine: deps.engine,
        defaultModel: deps.defaultModel,
        store,
        baseUrl: deps.baseUrl,
        active: deps.activeModel(),
        downloads: [...jobs.values()].map((job) => ({ ...job.state })),
        failures,
      }),
    pull(id) {
      assertModelId(id);
      const running = jobs.get(id);
      if (running)
        return { status: "downloading", joined: true, download: { ...running.state }, done: running.done };
      const installed = store.get(id);
      if (installed) {
        return { status: "installed", joined: false, model: installed, done: Promise.resolve(undefined) };
      }
      const job = start(id);
      return { status: "downloading", joined: false, download: { ...job.state }, done: job.done };
    },
    async remove(id, options = {}) {
      assertModelId(id);
      const job = jobs.get(id);
      const installed = store.get(id) !== undefined;
      if (!job && !installed && store.partialBytes(id) === 0) {
        throw notFound(`Model "${id}" is not installed.`, { id });
      }
      if (installed && id === deps.activeModel() && !options.force) {
        throw new AppError(
          "model_in_use",
          `"${id}" is the active speech model (stt_model). Switch stt_model to another model first, or delete with ?force=true.`,
          { details: { id } },
        );
      }
      if (job) {
        job.controller.abort();
        await job.done;
      }
      store.remove(id);
      events.publish("models.deleted", { id });
      logger.info("model deleted", { id });
    },
    async stop() {
      const running = [...jobs.values()];
      for (const job of running) job.controller.abort();
      await Promise.all(running.map((job) => job.done));
    },
  };
}
