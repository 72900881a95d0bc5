import { statSync } from "node:fs";
import { AppError } from "../../../errors.ts";
import type { EngineDefinition } from "../definition.ts";
import { loadWhisperAddon } from "./binding.ts";
import { createWhisperEngine } from "./engine.ts";

function modelMissing(id: string): AppError {
  return new AppError(
    "model_unavailable",
    `Speech model "${id}" is not installed. Download it with \`svc models pull ${id}\` or POST /api/models/${id}/pull, or choose another with PUT /api/settings/stt_model.`,
    { details: { model: id } },
  );
}

/**
 * whisper.cpp, embedded: the model file `stt_model` names stays loaded between requests (a warm
 * model is the point of a dictation server) and is reloaded when the file or a tuning setting changes.
 */
export const whisperEngine: EngineDefinition = {
  settings: ["stt_model", "whisper_threads", "audio_ctx_scaling", "whisper_max_tokens"],
  // It uses every core: one unit at a time.
  concurrency: () => 1,
  bias: "prompt",
  select({ settings, models }) {
    // The library first (cheap, loaded once): a CPU or system it cannot run on is the operator's to
    // hear about at start, not at the first dictation.
    loadWhisperAddon();
    const model = settings.get("stt_model");
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
      create: () => createWhisperEngine({ modelPath: path, threads, audioCtxScaling, maxTokensPerSegment }),
    };
  },
};
