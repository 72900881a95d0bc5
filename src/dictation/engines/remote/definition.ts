import { AppError } from "../../../errors.ts";
import type { EngineDefinition } from "../definition.ts";
import { whisperLanguageCodes } from "../languages.ts";
import { createRemoteEngine } from "./engine.ts";

/** Any OpenAI-compatible transcription server: OpenAI, Groq, a speaches or whisper.cpp server. */
export const remoteEngine: EngineDefinition = {
  title: "Remote server",
  description:
    "An OpenAI-compatible transcription API: OpenAI, Groq, speaches or a whisper.cpp server. Audio leaves this machine.",
  settings: [
    "remote_stt_base_url",
    "remote_stt_model",
    "remote_stt_api_key",
    "remote_stt_timeout_ms",
    "remote_stt_concurrency",
  ],
  // A server may take several requests at once; how many is the user's call.
  concurrency: (settings) => settings.get("remote_stt_concurrency"),
  bias: "prompt",
  activeModel: ({ settings }) => settings.get("remote_stt_model") ?? "(remote_stt_model not set)",
  models(context) {
    const { settings } = context;
    const model = settings.get("remote_stt_model");
    const baseUrl = settings.get("remote_stt_base_url");
    const configured = baseUrl !== null && model !== null;
    return [
      {
        id: remoteEngine.activeModel(context),
        installed: configured,
        active: true,
        // Whatever the server's model speaks: whisper's languages, the common case.
        languages: [...whisperLanguageCodes],
        description: configured
          ? "An OpenAI-compatible transcription server (stt_engine remote)."
          : "Set remote_stt_base_url and remote_stt_model to use it.",
        attribution: { name: "remote transcription server", url: baseUrl ? new URL(baseUrl).origin : "" },
        created: 0,
      },
    ];
  },
  // The server's model is the remote_stt_model setting; a request's model name means svc's own.
  modelPerRequest: false,
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
