import { WHISPER_LANGUAGES } from "../dictation/engines/languages.ts";
import { modelLanguages } from "../dictation/engines/whisper/ggml-model.ts";
import type { ModelPreset } from "../dictation/engines/whisper/models/presets.ts";
import type { ModelStore } from "../dictation/engines/whisper/models/store.ts";
import { engineLanguage } from "../dictation/language.ts";
import type { SettingsService } from "../settings/service.ts";

// What `describe` is answered with: an `info` event holding one `asr` program, shaped as info.py's
// dataclasses serialise (asdict: every field present, null where unknown), so Home Assistant's
// `Info.from_event` reads it. Home Assistant offers the languages of the installed models.

export interface InfoSources {
  version: string;
  /** Where svc's own console is served: the program's attribution link. */
  url: string;
  settings: Pick<SettingsService, "get">;
  models: Pick<ModelStore, "listInstalled" | "presets">;
}

interface Attribution {
  name: string;
  url: string;
}

/** asr.py's `AsrModel`: an `Artifact` with the languages it speaks. */
interface AsrModel {
  name: string;
  attribution: Attribution;
  installed: boolean;
  description: string | null;
  version: string | null;
  languages: string[];
}

const everyLanguage = [...WHISPER_LANGUAGES.keys()].sort();
const languagesOf = (kind: ModelPreset["languages"] | null) =>
  kind === "en" ? ["en"] : kind === "multilingual" ? everyLanguage : [];

const whisperAttribution: Attribution = {
  name: "OpenAI Whisper, ggml conversion by whisper.cpp",
  url: "https://huggingface.co/ggerganov/whisper.cpp",
};

type InstalledModel = ReturnType<InfoSources["models"]["listInstalled"]>[number];

/** The languages an installed model speaks: its preset's, or for an imported one its header's. */
const installedLanguages = (sources: InfoSources, model: InstalledModel) =>
  languagesOf(
    sources.models.presets.find((candidate) => candidate.id === model.id)?.languages ??
      modelLanguages(model.path),
  );

function whisperModels(sources: InfoSources): AsrModel[] {
  const active = sources.settings.get("stt_model");
  const installed = sources.models.listInstalled();
  const entries = installed.map((model): AsrModel => {
    const preset = sources.models.presets.find((candidate) => candidate.id === model.id);
    return {
      name: model.id,
      attribution: whisperAttribution,
      installed: true,
      description: `${model.id === active ? "Active model. " : ""}${preset?.description ?? "An imported whisper model."}`,
      version: null,
      languages: installedLanguages(sources, model),
    };
  });
  // The active model first: it answers when the client names none.
  entries.sort((a, b) => Number(b.name === active) - Number(a.name === active));
  if (!installed.some((model) => model.id === active)) {
    const preset = sources.models.presets.find((candidate) => candidate.id === active);
    entries.unshift({
      name: active,
      attribution: whisperAttribution,
      installed: false,
      description: `The active model (stt_model), not downloaded yet: svc models pull ${active}.`,
      version: null,
      languages: languagesOf(preset?.languages ?? null),
    });
  }
  return entries;
}

/** The models a Wyoming request can be answered with: those of the engine `stt_engine` selects. */
export function answeringModels(sources: InfoSources): AsrModel[] {
  const { settings } = sources;
  const engine = settings.get("stt_engine");
  if (engine === "whisper") return whisperModels(sources);
  if (engine === "sphinx") {
    return [
      {
        name: "en-us",
        attribution: { name: "CMU Sphinx", url: "https://cmusphinx.github.io" },
        installed: true,
        description: "PocketSphinx's US English model (stt_engine sphinx).",
        version: null,
        languages: ["en"],
      },
    ];
  }
  const model = settings.get("remote_stt_model") ?? "(remote_stt_model not set)";
  const baseUrl = settings.get("remote_stt_base_url");
  return [
    {
      name: model,
      attribution: { name: "remote transcription server", url: baseUrl ? new URL(baseUrl).origin : "" },
      installed: baseUrl !== null && settings.get("remote_stt_model") !== null,
      description: "An OpenAI-compatible transcription server (stt_engine remote).",
      version: null,
      languages: everyLanguage,
    },
  ];
}

/**
 * The model a `transcribe` is answered with while whisper is the engine, when it is not the active
 * one: the installed model it names, or else, when the active model does not speak the language it
 * asks for, the first installed model that does. Home Assistant sends only a language, from the
 * union `describe` offers, so a German pipeline beside an English-only active model reaches a
 * multilingual one. Undefined leaves `stt_model` in charge, as a Wyoming server with one model does.
 */
export function requestedModel(
  sources: InfoSources,
  name: string | undefined,
  language?: string,
): string | undefined {
  if (sources.settings.get("stt_engine") !== "whisper") return undefined;
  const installed = sources.models.listInstalled();
  if (name !== undefined && installed.some((model) => model.id === name)) return name;
  const wanted = engineLanguage(language ?? "");
  if (wanted === "" || wanted === "auto") return undefined;
  const speaks = (model: InstalledModel) => installedLanguages(sources, model).includes(wanted);
  const active = installed.find((model) => model.id === sources.settings.get("stt_model"));
  if (active && speaks(active)) return undefined;
  // An imported model's languages come from reading its header: the active one is not read twice.
  return installed.find((model) => model !== active && speaks(model))?.id;
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
