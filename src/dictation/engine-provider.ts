import { isAppError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { EngineSettings } from "./engines/definition.ts";
import type { DeviceChoice } from "./engines/device-choice.ts";
import { removeHallucinations } from "./engines/hallucinations.ts";
import type { EngineId } from "./engines/ids.ts";
import { buildWhisperPrompt, combinePrompt } from "./engines/prompt.ts";
import { engineDefinition } from "./engines/registry.ts";
import type { EngineStores } from "./engines/stores.ts";
import type { SpeechEngine } from "./engines/types.ts";

/** The engine a dictation runs on, loaded, with what biases and cleans its text. */
export interface ActiveEngine {
  engine: SpeechEngine;
  id: EngineId;
  model: string;
  /** Text that biases recognition (whisper's prompt), built from the vocabulary. */
  prompt?: string;
  vocabulary?: readonly string[];
  /** Removes hallucinations, repetition loops and prompt echoes; `quiet` audio gets the stricter list. */
  clean(text: string, quiet: boolean): string;
}

/** What one dictation may choose instead of the settings. */
export interface EngineOverrides {
  /**
   * A model name, in place of the settings' choice, for an engine that takes one per request
   * (`modelPerRequest`); others answer with their own.
   */
  model?: string;
  /** The vocabulary that biases this dictation, in place of the stored one. */
  vocabulary?: readonly string[];
  /** The caller's own prompt, combined with the vocabulary within the prompt budget. */
  prompt?: string;
  /** Terms the caller names for this dictation (/v1's `keywords`), ahead of the vocabulary. */
  keywords?: readonly string[];
}

export interface EngineProviderDeps {
  settings: EngineSettings & { get(key: "stt_engine"): EngineId };
  /** The downloading engines' model stores. */
  stores: EngineStores;
  vocabulary: () => readonly string[];
  logger: Logger;
  /** Where an engine that can use a GPU runs (SVC_WHISPER_DEVICE); default `auto`. */
  device?: DeviceChoice;
}

interface Loaded {
  key: string;
  engine: Promise<SpeechEngine>;
}

export interface EngineProvider {
  /**
   * The engine `stt_engine` selects, loaded and kept warm; 503 when it cannot run here. A
   * dictation may ask for another engine, `stt_model` or vocabulary (a plugin's beforeTranscribe).
   */
  current(override?: EngineId, options?: EngineOverrides): Promise<ActiveEngine>;
  /**
   * Whether the selected engine could load now, without loading it (its library and model are
   * there); throws as `current` would.
   */
  check(): { id: EngineId; model: string };
  /** The engines loaded (or loading) now. */
  loaded(): EngineId[];
  /** Closes every loaded engine; the next dictation loads what it needs again. */
  close(): Promise<void>;
}

/**
 * The engine a dictation was handed, which loads it again if it was closed before the dictation
 * reached it: keep_alive gave it back, or a changed setting replaced it, while the dictation was
 * decoding or queued. Once: a second close in that window is an error like any other.
 */
function reloadingOnClose(engine: SpeechEngine, reload: () => Promise<SpeechEngine>): SpeechEngine {
  return {
    id: engine.id,
    build: engine.build,
    device: engine.device,
    close: () => engine.close(),
    async transcribe(pcm, options) {
      try {
        return await engine.transcribe(pcm, options);
      } catch (error) {
        if (!isAppError(error) || error.code !== "engine_closed") throw error;
        return (await reload()).transcribe(pcm, options);
      }
    },
  };
}

/**
 * Loads and caches the speech engine the settings select (engines/registry.ts says how each is
 * chosen). A loaded engine is kept until its selection key changes: a warm model between requests
 * is the point of a dictation server.
 */
export function createEngineProvider(deps: EngineProviderDeps): EngineProvider {
  const { settings, logger } = deps;
  const loaded = new Map<EngineId, Loaded>();
  const context = { settings, stores: deps.stores, device: deps.device };

  function retire(id: EngineId, previous: Loaded | undefined): void {
    if (!previous) return;
    loaded.delete(id);
    // Calls already running finish: a closed engine only refuses new ones (the remote engine may
    // have several in flight).
    previous.engine.then((engine) => engine.close()).catch(() => {});
  }

  function load(id: EngineId, model: string, key: string, create: () => Promise<SpeechEngine>) {
    const cached = loaded.get(id);
    if (cached?.key === key) return cached.engine;
    retire(id, cached);
    const started = performance.now();
    const engine = create().then((ready) => {
      const ms = Math.round(performance.now() - started);
      logger.info("speech model loaded", {
        engine: id,
        model,
        ms,
        ...(ready.build && { build: ready.build }),
        ...(ready.device && { device: ready.device }),
      });
      if (ready.deviceNote) logger.info(`${id} runs on the CPU`, { reason: ready.deviceNote });
      return ready;
    });
    const entry = { key, engine };
    loaded.set(id, entry);
    const forget = () => {
      if (loaded.get(id) === entry) loaded.delete(id);
    };
    engine.then(
      // An engine that stops by itself is not kept either.
      (ready) =>
        ready.ended?.then((reason) => {
          logger.warn("speech engine stopped", { engine: id, reason: reason.message });
          forget();
        }),
      // A failed load is not cached: the next request tries again (the user may have fixed it).
      forget,
    );
    return engine;
  }

  const promptOf = (terms: readonly string[]) =>
    terms.length === 0 ? undefined : buildWhisperPrompt(terms).prompt;

  // The stored term list is a cached array, replaced when the vocabulary changes: build its
  // prompt once. A plugin's list for one dictation is built each time.
  let promptTerms: readonly string[] | undefined;
  let cachedPrompt: string | undefined;
  function storedPrompt(terms: readonly string[]): string | undefined {
    if (terms !== promptTerms) {
      promptTerms = terms;
      cachedPrompt = promptOf(terms);
    }
    return cachedPrompt;
  }

  return {
    async current(override, options = {}) {
      const id = override ?? settings.get("stt_engine");
      const definition = engineDefinition(id);
      const requested = definition.modelPerRequest ? options.model : undefined;
      const { model, key, create } = definition.select(context, requested);
      const engine = load(id, model, key, create);
      const listed = options.vocabulary ?? deps.vocabulary();
      const keywords = options.keywords ?? [];
      // The caller's terms first: the prompt budget keeps the front of the list.
      const terms = keywords.length === 0 ? listed : [...new Set([...keywords, ...listed])];
      let prompt: string | undefined;
      if (definition.bias === "prompt" && options.prompt?.trim())
        prompt = combinePrompt(options.prompt, terms);
      else if (definition.bias === "prompt")
        prompt = terms === deps.vocabulary() ? storedPrompt(terms) : promptOf(terms);
      return {
        engine: reloadingOnClose(await engine, () => load(id, model, key, create)),
        id,
        model,
        prompt,
        vocabulary: terms,
        clean: (text, quiet) => removeHallucinations(text, { prompt, quiet }),
      };
    },
    loaded: () => [...loaded.keys()],
    check() {
      const id = settings.get("stt_engine");
      const { model } = engineDefinition(id).select(context);
      return { id, model };
    },
    async close() {
      const engines = [...loaded.values()];
      loaded.clear();
      await Promise.allSettled(engines.map((entry) => entry.engine.then((engine) => engine.close())));
    },
  };
}
