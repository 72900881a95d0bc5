import type { EngineId } from "../dictation/engines/types.ts";
import { AppError } from "../errors.ts";

// How OpenAI model names map onto svc, one rule for /v1's transcriptions, translations and models:
// OpenAI's own names mean the active engine and model; an installed model's id selects that model
// and its engine; any other name is 404 `model_not_found`, as OpenAI answers it, rather than a
// transcript from a model the caller did not ask for.

/** OpenAI's transcription model names, answered by svc's active engine and model. */
export const openAiModelAliases = ["whisper-1", "gpt-4o-transcribe", "gpt-4o-mini-transcribe"] as const;

export interface OpenAiModel {
  id: string;
  object: "model";
  created: number;
  owned_by: string;
}

/** An installed model a request may name. */
export interface RequestableModel {
  id: string;
  engine: EngineId;
  created: number;
}

/** The installed models a request may name, then the aliases; `created` is a model file's time. */
export function listOpenAiModels(installed: readonly RequestableModel[]): OpenAiModel[] {
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

export const modelNotFound = (name: string) =>
  new AppError(
    "model_not_found",
    `The model "${name}" is not installed in svc: name one GET /v1/models lists, or ${openAiModelAliases.join(", ")} for svc's active model.`,
    { details: { param: "model" } },
  );

/**
 * The engine and model `name` selects: undefined for OpenAI's names (the active ones), the
 * installed model of that id; 404 `model_not_found` for anything else.
 */
export function chooseOpenAiModel(
  name: string,
  installed: readonly RequestableModel[],
): { engine: EngineId; model: string } | undefined {
  if ((openAiModelAliases as readonly string[]).includes(name)) return undefined;
  const found = installed.find((model) => model.id === name);
  if (!found) throw modelNotFound(name);
  return { engine: found.engine, model: found.id };
}
