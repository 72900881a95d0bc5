import type { Handler } from "hono";
import * as v from "valibot";
import { keyNameOf, nobody } from "../access/principal.ts";
import type { EngineContext } from "../dictation/engines/definition.ts";
import { requestableModels, requestedEngineModel } from "../dictation/engines/models.ts";
import type { Transcriber } from "../dictation/transcriber.ts";
import type { ErrorCode } from "../error-codes.ts";
import { AppError, notFound } from "../errors.ts";
import { parseAppContext } from "../formats/app-context.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { documentedRoutes, type RouteSpec } from "../http/documented-routes.ts";
import { readMultipart } from "../http/multipart.ts";
import { requestInfoOf } from "../http/request-info.ts";
import type { AppEnv } from "../http/types.ts";
import { listOpenAiModels, openAiModelAliases } from "../openai/models.ts";
import { readTranscriptionFields } from "../openai/request.ts";
import { renderTranscription, transcriptEvents } from "../openai/responses.ts";
import { transcribeDoc } from "./transcribe.ts";

const usage = v.object({ type: v.literal("duration"), seconds: v.number() });
const word = v.object({ word: v.string(), start: v.number(), end: v.number() });
const segment = v.object({
  id: v.number(),
  seek: v.number(),
  start: v.number(),
  end: v.number(),
  text: v.string(),
  tokens: v.array(v.number()),
  temperature: v.number(),
  avg_logprob: v.number(),
  compression_ratio: v.number(),
  no_speech_prob: v.number(),
});
const transcriptionSchema = v.union([
  v.object({
    task: v.picklist(["transcribe", "translate"]),
    language: v.string(),
    duration: v.number(),
    text: v.string(),
    segments: v.array(segment),
    words: v.optional(v.array(word)),
    usage,
  }),
  v.object({ text: v.string(), usage }),
]);
const modelSchema = v.object({
  id: v.string(),
  object: v.literal("model"),
  created: v.number(),
  owned_by: v.string(),
});

const transcriptionErrors = [
  ...(transcribeDoc.errors ?? []),
  "invalid_request",
  "translation_unsupported",
] as const satisfies readonly ErrorCode[];

const fieldsDoc = (task: "transcribe" | "translate") =>
  `Multipart form (also streamed, with no Content-Length, as the Node SDK sends a ReadStream): \`file\` (required; any audio /api/transcribe takes), \`model\` (required: an installed svc model id selects that model; ${openAiModelAliases.join(", ")} and any other name mean the active engine and model), ${task === "transcribe" ? "`language`, " : ""}\`prompt\` (combined with the vocabulary within the engine's prompt budget), \`temperature\` (0–1), \`response_format\` (json, text, srt, vtt, verbose_json), \`timestamp_granularities[]\` (segment, word; also without brackets or comma-joined), \`stream\` (true: server-sent events transcript.text.delta and transcript.text.done). Unknown fields are ignored. The text goes through cleanup, formats (with \`x-app-context\`), the dictionary and plugins, and is stored in history marked \`openai\`; \`x-skip-post-process: true\` answers the engine's text. \`text\` is the finished text; segments and words carry the engine's text with the dictionary applied. Errors use OpenAI's shape {"error":{"message","type","param","code"}}. With SVC_AUTH keys, the Authorization header carries an svc key (the clients' apiKey); with auth off any Authorization header is accepted and ignored.`;

const transcriptionDoc = (task: "transcribe" | "translate"): RouteSpec => ({
  summary:
    task === "transcribe"
      ? "OpenAI-compatible transcription"
      : "OpenAI-compatible translation to English (multilingual whisper models)",
  access: "dictate",
  description: fieldsDoc(task),
  bodyTypes: ["multipart/form-data"],
  bodyKind: "upload",
  responses: {
    200: { description: "The transcript in the requested format", schema: transcriptionSchema },
  },
  errors: transcriptionErrors,
});

export function createOpenAiRoutes(deps: {
  transcriber: Transcriber;
  engines: EngineContext;
  docs: ApiDocs;
}) {
  const installed = () => requestableModels(deps.engines);

  const transcription =
    (task: "transcribe" | "translate"): Handler<AppEnv> =>
    async (c) => {
      requestInfoOf(c)?.server?.timeout(c.req.raw, 0);
      const type = c.req.header("content-type") ?? "";
      if (!type.toLowerCase().startsWith("multipart/form-data")) {
        throw new AppError(
          "invalid_request",
          "Send the request as multipart/form-data with file and model fields.",
          {
            details: { param: "file" },
          },
        );
      }
      const body = readMultipart(new Uint8Array(await c.req.arrayBuffer()), type);
      const fields = readTranscriptionFields(body, task);
      const upload = body.file("file");
      if (!upload || upload.audio.length === 0) {
        throw new AppError("missing_audio", 'Send the recording as a multipart file field named "file".', {
          details: { param: "file" },
        });
      }
      // An installed model's id selects it and its engine; OpenAI's names and any other mean the active ones.
      const chosen = requestedEngineModel(deps.engines, fields.model);
      const result = await deps.transcriber.transcribe({
        ...upload,
        appContext: parseAppContext(c.req.header("x-app-context")),
        language: fields.language,
        skipPostProcess: c.req.header("x-skip-post-process")?.toLowerCase() === "true",
        signal: c.req.raw.signal,
        keyName: keyNameOf(requestInfoOf(c)?.principal ?? nobody),
        engine: chosen?.engine,
        model: chosen?.model,
        prompt: fields.prompt,
        temperature: fields.temperature,
        translate: task === "translate",
        words: fields.words,
        detail: fields.responseFormat !== "json" && fields.responseFormat !== "text",
        source: "openai",
      });
      if (fields.stream) {
        return c.body(transcriptEvents(result), 200, {
          "Content-Type": "text/event-stream; charset=utf-8",
          "Cache-Control": "no-cache",
        });
      }
      const rendered = renderTranscription(result, {
        format: fields.responseFormat,
        task,
        temperature: fields.temperature ?? 0,
        words: fields.words,
      });
      return c.body(rendered.body, 200, { "Content-Type": rendered.contentType });
    };

  return documentedRoutes(deps.docs, "/v1", "OpenAI")
    .post("/audio/transcriptions", transcriptionDoc("transcribe"), transcription("transcribe"))
    .post("/audio/translations", transcriptionDoc("translate"), transcription("translate"))
    .get(
      "/models",
      {
        access: "dictate",
        summary:
          "Models in OpenAI's list shape: the installed models a request may name (each engine's that takes one per request: whisper's), then OpenAI's names svc answers",
        responses: {
          200: {
            description: "The models",
            schema: v.object({ object: v.literal("list"), data: v.array(modelSchema) }),
          },
        },
      },
      (c) => c.json({ object: "list", data: listOpenAiModels(installed()) }),
    )
    .get(
      "/models/:id",
      {
        summary: "One model in OpenAI's shape",
        access: "dictate",
        params: v.object({ id: v.string() }),
        responses: { 200: { description: "The model", schema: modelSchema } },
      },
      (c) => {
        const id = c.req.param("id") ?? "";
        const found = listOpenAiModels(installed()).find((model) => model.id === id);
        if (!found)
          throw notFound(`The model "${id}" does not exist: GET /v1/models lists those svc answers.`);
        return c.json(found);
      },
    );
}
