import type { EngineContext, EngineModel } from "../dictation/engines/definition.ts";
import { requestableModels } from "../dictation/engines/models.ts";
import { engineDefinition } from "../dictation/engines/registry.ts";
import type { EngineId } from "../dictation/engines/types.ts";
import { engineLanguage } from "../dictation/language.ts";

// What `describe` is answered with: an `info` event holding one `asr` program, shaped as info.py's
// dataclasses serialise (asdict: every field present, null where unknown), so Home Assistant's
// `Info.from_event` reads it. Home Assistant offers the languages of the installed models.

export interface InfoSources extends EngineContext {
  version: string;
  /** Where svc's own console is served: the program's attribution link. */
  url: string;
}

/** asr.py's `AsrModel`: an `Artifact` with the languages it speaks. */
interface AsrModel {
  name: string;
  attribution: { name: string; url: string };
  installed: boolean;
  description: string | null;
  version: string | null;
  languages: string[];
}

const activeEngine = (sources: InfoSources) => engineDefinition(sources.settings.get("stt_engine"));

const asrModel = (model: EngineModel): AsrModel => ({
  name: model.id,
  attribution: model.attribution,
  installed: model.installed,
  description: model.description,
  version: null,
  languages: model.languages,
});

/**
 * The models a Wyoming request can be answered with: those of the engine `stt_engine` selects, then
 * the installed models of other engines a request may name (whisper's, beside sphinx). Home
 * Assistant offers the languages of the installed ones, so a pipeline's language is one svc has a
 * model for, and its own check refuses any other, naming it, before a word is said.
 */
export function answeringModels(sources: InfoSources): AsrModel[] {
  const own = activeEngine(sources).models(sources);
  const others = requestableModels(sources).filter((model) => !own.some((mine) => mine.id === model.id));
  return [...own, ...others].map(asrModel);
}

/**
 * The model (and its engine) a `transcribe` is answered with, when it is not the active one: the
 * installed model it names, or else, when the active model does not speak the language it asks
 * for, an installed model that does (the active engine's first, then another engine's). Home
 * Assistant sends only a language, from the union `describe` offers, so a German pipeline beside
 * an English-only active model (base.en, or sphinx) reaches a multilingual one. Undefined leaves
 * the settings in charge, as a Wyoming server with one model does.
 */
export function requestedModel(
  sources: InfoSources,
  name: string | undefined,
  language?: string,
): { engine: EngineId; model: string } | undefined {
  const activeId = sources.settings.get("stt_engine");
  const requestable = requestableModels(sources);
  const named = name === undefined ? undefined : requestable.find((model) => model.id === name);
  if (named) return { engine: named.engine, model: named.id };
  const wanted = engineLanguage(language ?? "");
  if (wanted === "" || wanted === "auto") return undefined;
  const active = activeEngine(sources)
    .models(sources)
    .find((model) => model.installed && model.active);
  if (active?.languages.includes(wanted)) return undefined;
  const speaking = requestable.filter((model) => model.id !== active?.id && model.languages.includes(wanted));
  const chosen = speaking.find((model) => model.engine === activeId) ?? speaking[0];
  return chosen && { engine: chosen.engine, model: chosen.id };
}

/** The data of the `info` event. */
export function describeSvc(sources: InfoSources): Record<string, unknown> {
  const program = {
    name: "svc",
    attribution: { name: "svc", url: sources.url },
    installed: true,
    description:
      "svc, a self-hosted dictation server: live speech recognition with its dictionary, formats, plugins and history",
    version: sources.version,
    models: answeringModels(sources),
    supports_transcript_streaming: true,
    // svc does not end a command by itself: the client's own detector sends audio-stop.
    requires_external_vad: true,
  };
  return { asr: [program], tts: [], handle: [], intent: [], wake: [], mic: [], snd: [] };
}
