import { statSync } from "node:fs";
import { AppError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { SettingsService } from "../settings/service.ts";
import { removeHallucinations } from "./engines/hallucinations.ts";
import { buildWhisperPrompt } from "./engines/prompt.ts";
import { createRemoteEngine } from "./engines/remote.ts";
import { createSphinxEngine, probeSphinx } from "./engines/sphinx.ts";
import type { EngineId, SpeechEngine } from "./engines/types.ts";
import { createWhisperEngine } from "./engines/whisper.ts";
import type { ModelStore } from "./models/store.ts";
import type { ActiveEngine } from "./transcriber.ts";

export interface EngineProviderDeps {
  settings: SettingsService;
  models: ModelStore;
  vocabulary: () => readonly string[];
  logger: Logger;
}

interface Loaded {
  key: string;
  engine: Promise<SpeechEngine>;
}

export interface EngineProvider {
  /** The engine `stt_engine` selects, loaded and kept warm; 503 when it cannot run here. */
  current(override?: EngineId): Promise<ActiveEngine>;
  close(): Promise<void>;
}

function modelMissing(id: string): AppError {
  return new AppError(
    503,
    "model_unavailable",
    `Speech model "${id}" is not installed. Download it with \`svc models pull ${id}\` or POST /api/models/${id}/pull, or choose another with PUT /api/settings/stt_model.`,
    { details: { model: id } },
  );
}

/**
 * Chooses, loads and caches the speech engine the settings ask for. A whisper model stays loaded
 * between requests (a warm model is the point of a dictation server) and is reloaded only when
 * the model file, thread count or audio_ctx setting changes.
 */
export function createEngineProvider(deps: EngineProviderDeps): EngineProvider {
  const { settings, logger } = deps;
  const loaded = new Map<EngineId, Loaded>();

  function retire(id: EngineId, previous: Loaded | undefined): void {
    if (!previous) return;
    loaded.delete(id);
    // Calls already running finish: a closed engine only refuses new ones (the remote engine may
    // have several in flight).
    previous.engine.then((engine) => engine.close()).catch(() => {});
  }

  function load(id: EngineId, key: string, create: () => Promise<SpeechEngine>): Promise<SpeechEngine> {
    const cached = loaded.get(id);
    if (cached?.key === key) return cached.engine;
    retire(id, cached);
    const engine = create();
    const entry = { key, engine };
    loaded.set(id, entry);
    // A failed load is not cached: the next request tries again (the user may have fixed it).
    engine.catch(() => {
      if (loaded.get(id) === entry) loaded.delete(id);
    });
    return engine;
  }

  function whisper(): { model: string; engine: Promise<SpeechEngine> } {
    const model = settings.get("stt_model");
    const path = deps.models.pathFor(model);
    let mtime: number;
    try {
      mtime = statSync(path).mtimeMs;
    } catch {
      throw modelMissing(model);
    }
    const threads = settings.get("whisper_threads") ?? undefined;
    const audioCtxScaling = settings.get("audio_ctx_scaling");
    const maxTokensPerSegment = settings.get("whisper_max_tokens");
    const key = `${path}|${mtime}|${threads ?? "auto"}|${audioCtxScaling}|${maxTokensPerSegment}`;
    return {
      model,
      engine: load("whisper", key, async () => {
        const started = performance.now();
        const engine = await createWhisperEngine({
          modelPath: path,
          threads,
          audioCtxScaling,
          maxTokensPerSegment,
        });
        logger.info("speech model loaded", {
          engine: "whisper",
          model,
          ms: Math.round(performance.now() - started),
        });
        return engine;
      }),
    };
  }

  function sphinx(): { model: string; engine: Promise<SpeechEngine> } {
    const availability = probeSphinx();
    if (!availability.available) {
      throw new AppError(
        503,
        "engine_unavailable",
        `The sphinx engine is not available: ${availability.reason}`,
        {
          details: { hint: availability.hint },
        },
      );
    }
    return { model: "en-us", engine: load("sphinx", "en-us", () => createSphinxEngine()) };
  }

  function remote(): { model: string; engine: Promise<SpeechEngine> } {
    const baseUrl = settings.get("remote_stt_base_url");
    const model = settings.get("remote_stt_model");
    if (!baseUrl || !model) {
      throw new AppError(
        503,
        "engine_unavailable",
        "The remote engine needs remote_stt_base_url and remote_stt_model (PUT /api/settings/<key>).",
      );
    }
    const apiKey = settings.get("remote_stt_api_key") ?? undefined;
    const timeoutMs = settings.get("remote_stt_timeout_ms");
    const key = `${baseUrl}|${model}|${apiKey}|${timeoutMs}`;
    return {
      model,
      engine: load("remote", key, async () => createRemoteEngine({ baseUrl, model, apiKey, timeoutMs })),
    };
  }

  const choose = { whisper, sphinx, remote };

  // The term list is a cached array, replaced when the vocabulary changes: build its prompt once.
  let promptTerms: readonly string[] | undefined;
  let cachedPrompt: string | undefined;
  function promptFor(terms: readonly string[]): string | undefined {
    if (terms !== promptTerms) {
      promptTerms = terms;
      cachedPrompt = terms.length === 0 ? undefined : buildWhisperPrompt(terms).prompt;
    }
    return cachedPrompt;
  }

  return {
    async current(override) {
      const id = override ?? settings.get("stt_engine");
      const { model, engine } = choose[id]();
      const terms = deps.vocabulary();
      const prompt = id === "sphinx" ? undefined : promptFor(terms);
      return {
        engine: await engine,
        id,
        model,
        prompt,
        vocabulary: terms,
        clean: (text, quiet) => removeHallucinations(text, { prompt, quiet }),
      };
    },
    async close() {
      const engines = [...loaded.values()];
      loaded.clear();
      await Promise.allSettled(engines.map((entry) => entry.engine.then((engine) => engine.close())));
    },
  };
}
