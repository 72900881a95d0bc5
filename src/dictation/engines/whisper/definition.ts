import { statSync } from "node:fs";
import { AppError } from "../../../errors.ts";
import type { EngineContext, EngineDefinition, EngineModel } from "../definition.ts";
import { whisperLanguageCodes } from "../languages.ts";
import { assertModelId, type InstalledModel, type ModelStore } from "../store/store.ts";
import { assertWhisperBuild } from "./binding.ts";
import { describeGpuDevice } from "./device.ts";
import { createWhisperEngine, whisperLanes } from "./engine.ts";
import { modelLanguages, validateWhisperModel } from "./ggml-model.ts";
import { defaultModelBaseUrl, defaultModelId, type ModelPreset, modelPresets } from "./models/presets.ts";
import { describeWhisperBuild, probeGpuDevices, whisperPlacement } from "./placement.ts";

function modelMissing(id: string): AppError {
  return new AppError(
    "model_unavailable",
    `Speech model "${id}" is not installed. Download it with \`svc models pull ${id}\` or POST /api/models/${id}/pull, or choose another with PUT /api/settings/stt_model.`,
    { details: { model: id } },
  );
}

const attribution = {
  name: "OpenAI Whisper, ggml conversion by whisper.cpp",
  url: "https://huggingface.co/ggerganov/whisper.cpp",
};

const languagesOf = (kind: ModelPreset["languages"] | null) =>
  kind === "en" ? ["en"] : kind === "multilingual" ? [...whisperLanguageCodes] : [];

/** Whisper's model files: the registry builds the store (engines/stores.ts), whisper reads it. */
function storeOf(context: EngineContext): ModelStore {
  const store = context.stores.whisper;
  if (!store) throw new Error("whisper's model store was not created (engines/stores.ts)");
  return store;
}

/** The installed models, the active one first; the active one is listed even when not installed. */
function whisperModels(context: EngineContext): EngineModel[] {
  const { settings } = context;
  const models = storeOf(context);
  const active = settings.get("stt_model");
  const presetOf = (id: string) => models.presets.find((preset) => preset.id === id);
  const installed = models.listInstalled();
  const listed = installed.map((model: InstalledModel): EngineModel => {
    const preset = presetOf(model.id);
    return {
      id: model.id,
      installed: true,
      active: model.id === active,
      // An imported model's languages come from its header.
      languages: languagesOf(preset?.languages ?? modelLanguages(model.path)),
      description: `${model.id === active ? "Active model. " : ""}${preset?.description ?? "An imported whisper model."}`,
      attribution,
      created: Math.floor(Date.parse(model.modifiedAt) / 1000),
    };
  });
  listed.sort((a, b) => Number(b.active) - Number(a.active));
  if (!installed.some((model) => model.id === active)) {
    listed.unshift({
      id: active,
      installed: false,
      active: true,
      languages: languagesOf(presetOf(active)?.languages ?? null),
      description: `The active model (stt_model), not downloaded yet: svc models pull ${active}.`,
      attribution,
      created: 0,
    });
  }
  return listed;
}

/**
 * whisper.cpp, embedded: the model file `stt_model` names stays loaded between requests (a warm
 * model is the point of a dictation server) and is reloaded when the file or a tuning setting changes.
 */
export const whisperEngine: EngineDefinition = {
  title: "Whisper (on this machine)",
  description:
    "whisper.cpp runs here with the model chosen below. Accurate, 99 languages with a multilingual model; needs one model download.",
  settings: ["stt_model", "whisper_threads", "audio_ctx_scaling", "whisper_max_tokens"],
  // On the CPU it uses every core: one unit at a time. On a GPU the engine runs two at once.
  concurrency: () => whisperLanes(whisperPlacement()?.device !== undefined),
  bias: "prompt",
  activeModel: ({ settings }) => settings.get("stt_model"),
  models: whisperModels,
  modelPerRequest: true,
  runtime() {
    const placement = whisperPlacement();
    if (!placement) return undefined;
    const { build, device, fallback } = placement;
    return {
      build: `${build.name} (${build.label})`,
      device: device ? describeGpuDevice(device) : "CPU",
      ...(fallback && { note: fallback }),
    };
  },
  store: {
    presets: modelPresets,
    defaultModel: defaultModelId,
    defaultBaseUrl: defaultModelBaseUrl,
    validate: (path) => {
      validateWhisperModel(path);
    },
  },
  library: { name: "whisper.cpp", describe: describeWhisperBuild },
  probeDevices: probeGpuDevices,
  serveGpu: async () => (await import("./gpu-process.ts")).serveWhisperGpu(),
  select(context, requested) {
    const { settings } = context;
    const models = storeOf(context);
    if (requested !== undefined) assertModelId(requested);
    // The processor first: a CPU no build runs on is the operator's to hear about at start, not at
    // the first dictation. The library itself loads with the engine (createWhisperEngine).
    assertWhisperBuild();
    const model = requested ?? settings.get("stt_model");
    const path = models.pathFor(model);
    let mtime: number;
    try {
      mtime = statSync(path).mtimeMs;
    } catch {
      throw modelMissing(model);
    }
    const threads = settings.get("whisper_threads") ?? undefined;
    const audioCtxScaling = settings.get("audio_ctx_scaling");
    const maxTokensPerSegment = settings.get("whisper_max_tokens");
    return {
      model,
      key: `${path}|${mtime}|${threads ?? "auto"}|${audioCtxScaling}|${maxTokensPerSegment}`,
      create: () =>
        createWhisperEngine({
          modelPath: path,
          threads,
          audioCtxScaling,
          maxTokensPerSegment,
          device: context.device,
        }),
    };
  },
};
