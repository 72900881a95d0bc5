// The fields of OpenAI's multipart transcription request, read the way its clients send them.
import { languageSchema } from "../dictation/language.ts";
import { AppError } from "../errors.ts";
import { parseOrThrow } from "../validation.ts";

export const responseFormats = ["json", "text", "srt", "vtt", "verbose_json"] as const;
export type ResponseFormat = (typeof responseFormats)[number];

export interface OpenAiTranscriptionFields {
  model: string;
  /** `language`, or the one candidate `languages` names; undefined: the engine detects it. */
  language: string | undefined;
  /** Terms to bias recognition towards, ahead of svc's vocabulary (`keywords[]`). */
  keywords: string[];
  prompt: string | undefined;
  temperature: number | undefined;
  responseFormat: ResponseFormat;
  /** `timestamp_granularities` asked for word timings. */
  words: boolean;
  stream: boolean;
}

/** A multipart form's fields as FormData answers them: text values are strings. */
export interface FormFields {
  get(name: string): unknown;
  getAll(name: string): unknown[];
}

/** The longest `prompt` read; whisper keeps about 224 tokens of it anyway. */
export const maxPromptLength = 4000;

const invalid = (param: string, message: string) =>
  new AppError("invalid_request", message, { details: { param } });

function text(form: FormFields, name: string): string | undefined {
  const value = form.get(name);
  return typeof value === "string" ? value : undefined;
}

/**
 * Every value of an array field, however the client spelled it: repeated `name[]` parts (the
 * official SDKs), repeated `name` parts, or one comma-joined value.
 */
export function arrayField(form: FormFields, name: string): string[] {
  return [...form.getAll(`${name}[]`), ...form.getAll(name)]
    .filter((value): value is string => typeof value === "string")
    .flatMap((value) => value.split(","))
    .map((value) => value.trim())
    .filter(Boolean);
}

/** The most `keywords` a request may name: OpenAI's own limit. */
export const maxKeywords = 100;

/**
 * `language`, else `languages[]` (the candidates OpenAI's newer models take): one candidate is the
 * language; several leave it to the engine to detect, since svc's engines detect among all the
 * languages their model speaks and cannot be held to a list.
 */
function readLanguage(form: FormFields): string | undefined {
  const parse = (value: string, field: string) =>
    parseOrThrow(languageSchema, value, "invalid_language", `${field} field`);
  const single = text(form, "language")?.trim();
  const candidates = arrayField(form, "languages").map((value) => parse(value, "languages"));
  if (single) return parse(single, "language");
  return candidates.length === 1 ? candidates[0] : undefined;
}

/** Reads the request's fields; unknown fields are ignored, as OpenAI's clients send many. */
export function readTranscriptionFields(
  form: FormFields,
  task: "transcribe" | "translate",
): OpenAiTranscriptionFields {
  const model = text(form, "model")?.trim();
  if (!model)
    throw invalid("model", 'The "model" field is required (any name: "whisper-1" uses svc\'s active model).');
  if (model.length > 200) throw invalid("model", 'The "model" field is longer than 200 characters.');
  const language = task === "translate" ? undefined : readLanguage(form);
  const keywords = arrayField(form, "keywords");
  if (keywords.length > maxKeywords)
    throw invalid("keywords", `The "keywords" field names more than ${maxKeywords} terms.`);
  if (keywords.some((keyword) => keyword.length > 100))
    throw invalid("keywords", 'A "keywords" term is longer than 100 characters.');
  const include = arrayField(form, "include");
  if (include.length > 0) {
    throw invalid(
      "include",
      `svc does not return ${include.join(", ")}: its engines give no per-token log probabilities. Leave "include" out.`,
    );
  }
  const prompt = text(form, "prompt");
  if (prompt !== undefined && prompt.length > maxPromptLength)
    throw invalid("prompt", `The "prompt" field is longer than ${maxPromptLength} characters.`);
  const temperatureText = text(form, "temperature")?.trim();
  const temperature = temperatureText ? Number(temperatureText) : undefined;
  if (temperature !== undefined && !(Number.isFinite(temperature) && temperature >= 0 && temperature <= 1))
    throw invalid("temperature", 'The "temperature" field must be a number from 0 to 1.');
  const format = text(form, "response_format")?.trim() || "json";
  if (!(responseFormats as readonly string[]).includes(format))
    throw invalid(
      "response_format",
      `The "response_format" field must be one of ${responseFormats.join(", ")}.`,
    );
  const granularities = arrayField(form, "timestamp_granularities");
  for (const granularity of granularities) {
    if (granularity !== "segment" && granularity !== "word")
      throw invalid("timestamp_granularities", 'timestamp_granularities takes "segment" and "word".');
  }
  const streamText = text(form, "stream")?.trim().toLowerCase();
  if (streamText !== undefined && streamText !== "true" && streamText !== "false")
    throw invalid("stream", 'The "stream" field must be true or false.');
  return {
    model,
    language,
    keywords,
    prompt: prompt?.trim() || undefined,
    temperature,
    responseFormat: format as ResponseFormat,
    words: granularities.includes("word"),
    stream: streamText === "true",
  };
}
