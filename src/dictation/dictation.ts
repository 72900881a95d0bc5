import { isAppError, reasonOf } from "../errors.ts";
import type { EventBus } from "../events.ts";
import type { Logger } from "../logger.ts";
import type { AfterCleanupHook } from "../plugins/hooks.ts";
import type { BeforeTranscribeHook } from "../plugins/hooks-audio.ts";
import type { PipelineEvent } from "../plugins/pipeline-events.ts";
import type { Services } from "../services.ts";
import { isKnownSetting } from "../settings/catalog.ts";
import { closeDecodeWorker, decodeAudio, encodeWav } from "./audio/index.ts";
import { createEngineProvider, type EngineProvider } from "./engine-provider.ts";
import type { DeviceChoice } from "./engines/device-choice.ts";
import { engineDefinition, engineSettingKeys } from "./engines/registry.ts";
import type { EngineStores } from "./engines/stores.ts";
import { createKeepAlive, keepAliveMs } from "./keep-alive.ts";
import { createScheduler } from "./scheduler.ts";
import type { TextPipeline, TextPipelineDeps } from "./text/pipeline.ts";
import { cachedByVersion, createTextService } from "./text/text-service.ts";
import { createTranscriber, type Transcriber } from "./transcriber.ts";
import { releaseMemory } from "./trim-memory.ts";
import { energyModel } from "./vad/energy.ts";
import { createVad, type Vad } from "./vad/vad.ts";

export interface DictationOptions {
  services: Services;
  /** The downloading engines' model stores. */
  stores: EngineStores;
  hooks: () => readonly AfterCleanupHook[];
  /**
   * The plugin hooks that run before afterCleanup: beforeTranscribe on the decoded audio before
   * the engine, afterTranscribe and beforeCleanup in the text pipeline.
   */
  transcriptHooks?: () => ReturnType<NonNullable<TextPipelineDeps["getTranscriptHooks"]>> & {
    beforeTranscribe: readonly BeforeTranscribeHook[];
  };
  events: EventBus;
  /** Hands pipeline events (Freestyle's `transcribed`, `cleaned`, …) to the plugins' event hooks. */
  notify?(event: PipelineEvent): void;
  logger: Logger;
  /** `energy`: the energy detector instead of Silero VAD (SVC_VAD), for machines short of memory. */
  vad?: "silero" | "energy";
  /** SVC_WHISPER_DEVICE; default `auto`. */
  whisperDevice?: DeviceChoice;
}

export interface Dictation {
  pipeline: TextPipeline;
  transcriber: Transcriber;
  engines: EngineProvider;
  /** The voice-activity detector (Silero, loaded on first use or at warm-up). */
  vad: Vad;
  /**
   * At start: says in the log whether the selected engine can load (its library, its model), and
   * loads nothing: the engine and the detector load on first use (keep_alive gives them back).
   */
  check(): void;
  /** Loads the selected engine and the detector now rather than on first use (keep_alive applies). */
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
    stores: options.stores,
    vocabulary,
    logger,
    device: options.whisperDevice,
  });
  const scheduler = createScheduler({
    maxQueued: () => services.settings.get("transcribe_queue_size"),
    estimateMs: (lane) => (lane === "batch" ? 4000 : 1500),
    concurrency: () => engineDefinition(services.settings.get("stt_engine")).concurrency(services.settings),
  });
  const vad = createVad(options.vad === "energy" ? { logger, load: async () => energyModel() } : { logger });
  // After keep_alive without a dictation, what dictating loaded is given back; the next loads it again.
  const keepAlive = createKeepAlive({
    delayMs: () => keepAliveMs(services.settings.get("keep_alive")),
    release: async () => {
      if (dictating > 0 || !transcriber.isIdle() || !closeDecodeWorker() || !(await vad.unload())) {
        return false;
      }
      const loaded = engines.loaded();
      await releaseMemory(() => engines.close());
      if (loaded.length === 0) return true;
      logger.info("speech engines unloaded after keep_alive", { engines: loaded });
      return true;
    },
  });
  // Dictations running now: keep_alive counts from the end of the last one, whatever its outcome.
  let dictating = 0;
  const counted =
    <A extends unknown[], R>(run: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      dictating++;
      try {
        return await run(...args);
      } finally {
        dictating--;
        keepAlive.used();
      }
    };
  // Audio a beforeTranscribe hook hands back is held to the same length as a request's.
  const maxHookAudioMs = () => services.settings.get("max_audio_seconds") * 1000;
  const engineTranscriber = createTranscriber({
    decode: (bytes, type, maxDurationMs) => decodeAudio(bytes, type, { maxDurationMs }),
    engine: (override, choice) => engines.current(override, choice),
    scheduler,
    postProcess: (input) => pipeline.run(input),
    newDictation: () => pipeline.newDictation(),
    notify: options.notify,
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
        keyName: entry.keyName,
      }),
    dictionary: (text) => pipeline.dictionary(text),
    publish: (type, data) => events.publish(type, data),
    limits: () => ({
      maxAudioMs: services.settings.get("max_audio_seconds") * 1000,
      timeoutMs: services.settings.get("transcribe_timeout_seconds") * 1000,
      language: services.settings.get("language"),
      hookTimeoutMs: services.settings.get("hook_timeout_ms"),
      engine: services.settings.get("stt_engine"),
      // The engine's own choice (sphinx: en-us), from the settings: no model listing per dictation.
      modelOf: (engine) =>
        engineDefinition(engine).activeModel({ settings: services.settings, stores: options.stores }),
    }),
    encodeWav: (pcm) => encodeWav(pcm),
    decodeWav: async (bytes) =>
      (await decodeAudio(bytes, "audio/wav", { maxDurationMs: maxHookAudioMs() })).pcm,
    hasSpeech: (pcm, signal) => vad.hasSpeech(pcm, signal),
    beforeTranscribe: () => options.transcriptHooks?.().beforeTranscribe ?? [],
    warn: (message, fields) => logger.warn(message, fields),
  });
  const transcriber: Transcriber = {
    ...engineTranscriber,
    transcribe: counted(engineTranscriber.transcribe),
    recognisePiece: counted(engineTranscriber.recognisePiece),
    complete: counted(engineTranscriber.complete),
  };
  // Audio decoders stay lazy: each compressed codec holds tens of MB of WASM memory once used.
  const warmUpEngine = async () => {
    const started = performance.now();
    try {
      const engine = await engines.current();
      keepAlive.used();
      logger.info("speech engine warm", {
        engine: engine.id,
        model: engine.model,
        ms: Math.round(performance.now() - started),
      });
    } catch (error) {
      reportEngine(error);
    }
  };
  // No model yet is a normal first start; an engine that cannot run at all needs the operator.
  const reportEngine = (error: unknown) => {
    const reason = reasonOf(error);
    if (isAppError(error) && error.code === "engine_unavailable") {
      logger.warn("speech engine unavailable", { reason, details: error.details });
    } else {
      logger.info("speech engine not loaded yet", { reason });
    }
  };
  const check = () => {
    try {
      const { id, model } = engines.check();
      logger.info("speech engine ready to load on first use", { engine: id, model });
    } catch (error) {
      reportEngine(error);
    }
  };
  // A new engine or model is loaded as soon as it is chosen, not by the next dictation; keep_alive
  // gives it back if no dictation follows.
  services.settings.onChange((key) => {
    if (isKnownSetting(key) && engineSettingKeys.has(key)) void warmUpEngine();
  });
  const close = async () => {
    keepAlive.close();
    closeDecodeWorker();
    await engines.close();
    await vad.unload();
  };
  const warmUp = async () => {
    await Promise.all([warmUpEngine(), vad.warmUp()]);
  };
  return { pipeline, transcriber, engines, vad, check, warmUp, close };
}
