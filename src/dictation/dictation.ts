import type { EventBus } from "../events.ts";
import type { Logger } from "../logger.ts";
import type { Services } from "../services.ts";
import { decodeAudio } from "./audio/index.ts";
import { createEngineProvider, type EngineProvider } from "./engine-provider.ts";
import type { AfterCleanupHook } from "./hook-runner.ts";
import type { ModelStore } from "./models/store.ts";
import type { TextPipeline } from "./pipeline.ts";
import { createScheduler } from "./scheduler.ts";
import { createTextService } from "./text-service.ts";
import { createTranscriber, type Transcriber } from "./transcriber.ts";

export interface DictationOptions {
  services: Services;
  models: ModelStore;
  hooks: () => readonly AfterCleanupHook[];
  events: EventBus;
  logger: Logger;
}

export interface Dictation {
  pipeline: TextPipeline;
  transcriber: Transcriber;
  engines: EngineProvider;
  close(): Promise<void>;
}

/** The dictation path over svc's services: decode → engine (queued) → text pipeline → history. */
export function createDictation(options: DictationOptions): Dictation {
  const { services, events, logger } = options;
  const pipeline = createTextService(services, options.hooks, logger);
  const engines = createEngineProvider({
    settings: services.settings,
    models: options.models,
    vocabulary: () => services.vocabulary.terms(),
    logger,
  });
  const scheduler = createScheduler({
    maxQueued: () => services.settings.get("transcribe_queue_size"),
    estimateMs: (lane) => (lane === "batch" ? 4000 : 1500),
  });
  const transcriber = createTranscriber({
    decode: (bytes, type, maxDurationMs) => decodeAudio(bytes, type, { maxDurationMs }),
    engine: (override) => engines.current(override),
    scheduler,
    postProcess: (input) => pipeline.run(input),
    record: (entry) =>
      services.history.record({
        rawText: entry.raw,
        cleanedText: entry.deterministic,
        finalText: entry.text,
        language: entry.language,
        engine: entry.engine,
        model: entry.model,
        audioDurationMs: entry.audioDurationMs,
        processingMs: entry.processingMs,
        appContext: entry.appContext,
        formatId: entry.format?.id ?? null,
        formatLabel: entry.format?.label ?? null,
      }),
    publish: (type, data) => events.publish(type, data),
    limits: () => ({
      maxAudioMs: services.settings.get("max_audio_seconds") * 1000,
      timeoutMs: services.settings.get("transcribe_timeout_seconds") * 1000,
      language: services.settings.get("language"),
    }),
  });
  return { pipeline, transcriber, engines, close: () => engines.close() };
}
