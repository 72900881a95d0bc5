import { isAppError, reasonOf } from "../errors.ts";
import type { EventBus } from "../events.ts";
import type { Logger } from "../logger.ts";
import type { AfterCleanupHook, BeforeTranscribeHook } from "../plugins/hooks.ts";
import type { Services } from "../services.ts";
import { isKnownSetting } from "../settings/catalog.ts";
import { decodeAudio } from "./audio/index.ts";
import { createEngineProvider, type EngineProvider } from "./engine-provider.ts";
import { engineDefinition, engineSettingKeys } from "./engines/registry.ts";
import type { ModelStore } from "./engines/whisper/models/store.ts";
import { createScheduler } from "./scheduler.ts";
import type { TextPipeline, TextPipelineDeps } from "./text/pipeline.ts";
import { cachedByVersion, createTextService } from "./text/text-service.ts";
import { createTranscriber, type Transcriber } from "./transcriber.ts";
import { energyModel } from "./vad/energy.ts";
import { createVad, type Vad } from "./vad/vad.ts";

export interface DictationOptions {
  services: Services;
  models: ModelStore;
  hooks: () => readonly AfterCleanupHook[];
  /**
   * The plugin hooks that run before afterCleanup: beforeTranscribe on the decoded audio before
   * the engine, afterTranscribe and beforeCleanup in the text pipeline.
   */
  transcriptHooks?: () => ReturnType<NonNullable<TextPipelineDeps["getTranscriptHooks"]>> & {
    beforeTranscribe: readonly BeforeTranscribeHook[];
  };
  events: EventBus;
  logger: Logger;
  /** `energy`: the energy detector instead of Silero VAD (SVC_VAD), for machines short of memory. */
  vad?: "silero" | "energy";
}

export interface Dictation {
  pipeline: TextPipeline;
  transcriber: Transcriber;
  engines: EngineProvider;
  /** The voice-activity detector (Silero, loaded on first use or at warm-up). */
  vad: Vad;
  /**
   * Loads the selected engine and the voice-activity detector in the background, so the first
   * dictation after start (or after choosing another engine or model) does not pay for them. Failures (no model yet) are only logged.
   */
  warmUp(): Promise<void>;
  close(): Promise<void>;
}

/** The dictation path over svc's services: decode → engine (queued) → text pipeline → history. */
export function createDictation(options: DictationOptions): Dictation {
  const { services, events, logger } = options;
  // Read on every dictation by the engine prompt and the LLM pass: queried once per change.
  const vocabulary = cachedByVersion(services.vocabulary.version, () => services.vocabulary.terms());
  const pipeline = createTextService(
    services,
    { hooks: options.hooks, transcriptHooks: options.transcriptHooks, vocabulary },
    logger,
  );
  const engines = createEngineProvider({
    settings: services.settings,
    models: options.models,
    vocabulary,
    logger,
  });
  const scheduler = createScheduler({
    maxQueued: () => services.settings.get("transcribe_queue_size"),
    estimateMs: (lane) => (lane === "batch" ? 4000 : 1500),
    concurrency: () => engineDefinition(services.settings.get("stt_engine")).concurrency(services.settings),
  });
  const vad = createVad(options.vad === "energy" ? { logger, load: async () => energyModel() } : { logger });
  const transcriber = createTranscriber({
    decode: (bytes, type, maxDurationMs) => decodeAudio(bytes, type, { maxDurationMs }),
    engine: (override, choice) => engines.current(override, choice),
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
        source: entry.source,
      }),
    dictionary: (text) => pipeline.dictionary(text),
    publish: (type, data) => events.publish(type, data),
    limits: () => ({
      maxAudioMs: services.settings.get("max_audio_seconds") * 1000,
      timeoutMs: services.settings.get("transcribe_timeout_seconds") * 1000,
      language: services.settings.get("language"),
      hookTimeoutMs: services.settings.get("hook_timeout_ms"),
      engine: services.settings.get("stt_engine"),
    }),
    hasSpeech: (pcm, signal) => vad.hasSpeech(pcm, signal),
    beforeTranscribe: () => options.transcriptHooks?.().beforeTranscribe ?? [],
    warn: (message, fields) => logger.warn(message, fields),
  });
  // Audio decoders stay lazy: each compressed codec holds tens of MB of WASM memory once used.
  const warmUpEngine = async () => {
    const started = performance.now();
    try {
      const engine = await engines.current();
      logger.info("speech engine warm", {
        engine: engine.id,
        model: engine.model,
        ms: Math.round(performance.now() - started),
      });
    } catch (error) {
      const reason = reasonOf(error);
      // No model yet is a normal first start; an engine that cannot run at all needs the operator.
      if (isAppError(error) && error.code === "engine_unavailable") {
        logger.warn("speech engine unavailable", { reason, details: error.details });
      } else {
        logger.info("speech engine not loaded yet", { reason });
      }
    }
  };
  // The detector logs which one loaded (Silero, or the energy fallback and why).
  const warmUp = async () => {
    await Promise.all([warmUpEngine(), vad.warmUp()]);
  };
  // A new engine or model is loaded as soon as it is chosen, not by the next dictation.
  services.settings.onChange((key) => {
    if (isKnownSetting(key) && engineSettingKeys.has(key)) void warmUpEngine();
  });
  return { pipeline, transcriber, engines, vad, warmUp, close: () => engines.close() };
}
