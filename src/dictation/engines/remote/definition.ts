import { AppError } from "../../../errors.ts";
import type { EngineDefinition } from "../definition.ts";
import { createRemoteEngine } from "./engine.ts";

/** Any OpenAI-compatible transcription server: OpenAI, Groq, a speaches or whisper.cpp server. */
export const remoteEngine: EngineDefinition = {
  settings: ["remote_stt_base_url", "remote_stt_model", "remote_stt_api_key", "remote_stt_timeout_ms"],
  // A server may take several requests at once; how many is the user's call.
  concurrency: (settings) => settings.get("remote_stt_concurrency"),
  bias: "prompt",
  select({ settings }) {
    const baseUrl = settings.get("remote_stt_base_url");
    const model = settings.get("remote_stt_model");
    if (!baseUrl || !model) {
      throw new AppError(
        "engine_unavailable",
        "The remote engine needs remote_stt_base_url and remote_stt_model (PUT /api/settings/<key>).",
      );
    }
    const apiKey = settings.get("remote_stt_api_key") ?? undefined;
    const timeoutMs = settings.get("remote_stt_timeout_ms");
    return {
      model,
      key: `${baseUrl}|${model}|${apiKey}|${timeoutMs}`,
      create: async () => createRemoteEngine({ baseUrl, model, apiKey, timeoutMs }),
    };
  },
};
