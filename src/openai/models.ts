// How OpenAI model names map onto svc: an installed model's id picks that model (and its engine),
// OpenAI's own names and anything else mean the active engine and model.

/** OpenAI's transcription model names, answered by svc's active engine and model. */
export const openAiModelAliases = ["whisper-1", "gpt-4o-transcribe", "gpt-4o-mini-transcribe"] as const;

export interface OpenAiModel {
  id: string;
  object: "model";
  created: number;
  owned_by: string;
}

/** The installed models a request may name, then the aliases; `created` is a model file's time. */
export function listOpenAiModels(installed: readonly { id: string; created: number }[]): OpenAiModel[] {
  return [
    ...installed.map((model) => ({
      id: model.id,
      object: "model" as const,
      created: model.created,
      owned_by: "svc",
    })),
    ...openAiModelAliases.map((id) => ({ id, object: "model" as const, created: 0, owned_by: "svc" })),
  ];
}
