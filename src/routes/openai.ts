import type { Handler } from "hono";
import * as v from "valibot";
import { keyNameOf, nobody } from "../access/principal.ts";
import type { EngineContext } from "../dictation/engines/definition.ts";
import { requestableModels } from "../dictation/engines/models.ts";
import type { DictationRequest } from "../dictation/request.ts";
import type { Transcriber } from "../dictation/transcriber.ts";
import type { Vad } from "../dictation/vad/vad.ts";
import type { ErrorCode } from "../error-codes.ts";
import { AppError } from "../errors.ts";
import { parseAppContext } from "../formats/app-context.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { documentedRoutes, type RouteSpec } from "../http/documented-routes.ts";
import { errorBodySchemas, renderEnvelope } from "../http/error-envelopes.ts";
import { readMultipart, type UploadedFile } from "../http/multipart.ts";
import { requestInfoOf } from "../http/request-info.ts";
import type { AppEnv } from "../http/types.ts";
import type { Logger } from "../logger.ts";
import { chooseOpenAiModel, listOpenAiModels, modelNotFound, openAiModelAliases } from "../openai/models.ts";
import { readTranscriptionFields } from "../openai/request.ts";
import { renderTranscription } from "../openai/responses.ts";
import { openTranscriptStream, type TranscriptEvent } from "../openai/stream.ts";
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
/** One server-sent event's data under `stream: true` (each `data:` line is one of these). */
const streamEventSchema = v.union([
  v.object({ type: v.literal("transcript.text.delta"), delta: v.string() }),
  v.object({ type: v.literal("transcript.text.done"), text: v.string(), usage }),
  v.object({ type: v.literal("error"), ...errorBodySchemas.openai.entries }),
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
  "model_not_found",
] as const satisfies readonly ErrorCode[];

const fieldsDoc = (task: "transcribe" | "translate") =>
  `Multipart form (also streamed, with no Content-Length, as the Node SDK sends a ReadStream): \`file\` (required; any audio /api/transcribe takes), \`model\` (required: ${openAiModelAliases.join(", ")} mean the active engine and model; an installed model's id, as GET /v1/models lists it, selects that model and its engine; any other name is 404 model_not_found), ${task === "transcribe" ? "`language` (or `languages[]`: one candidate is the language, several leave it to the engine to detect), " : ""}\`prompt\` (combined with the vocabulary within the engine's prompt budget), \`keywords[]\` (terms to bias recognition towards, ahead of the vocabulary; up to 100), \`temperature\` (0–1), \`response_format\` (json, text, srt, vtt, verbose_json), \`timestamp_granularities[]\` (segment, word; also without brackets or comma-joined)${task === "transcribe" ? ', `stream` (true: server-sent events, a transcript.text.delta per piece of speech as the engine recognises it (the audio is cut at pauses, as live dictation does), then transcript.text.done with the finished text, which cleanup may have changed from the deltas put together; a failure before the first event (audio svc cannot read, an engine that cannot load) answers with its own status as without stream, one after it is one event {type:"error",error:{…}} and a log line)' : " (`stream` is ignored: translations answer whole)"}. \`include[]\` is refused (400, param include): svc has no per-token log probabilities. Unknown fields are ignored. The text goes through cleanup, formats (with \`x-app-context\`), the dictionary and plugins, and is stored in history marked \`openai\`; \`x-skip-post-process: true\` answers the engine's text. \`text\` is the finished text; segments and words carry it too, lined up with the engine's timings word by word; where cleanup rewrote the text so that its words no longer line up with the engine's (an LLM pass that rephrased it), they carry the engine's text with the dictionary applied. Errors use OpenAI's shape {"error":{"message","type","param","code"}} with svc's code in \`code\`; audio svc cannot use (415, 422 on /api) is 400 invalid_request_error here, as OpenAI answers it. With SVC_AUTH keys, the Authorization header carries an svc key (the clients' apiKey); with auth off any Authorization header is accepted and ignored.`;

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
    200: {
      description:
        task === "transcribe"
          ? "The transcript in the requested format: JSON (json, verbose_json), text/plain (text, srt, vtt), or with stream true server-sent events, one `data:` line per event"
          : "The transcript in the requested format: JSON (json, verbose_json) or text/plain (text, srt, vtt)",
      schema: transcriptionSchema,
      alternatives: {
        "text/plain": v.string(),
        ...(task === "transcribe" && { "text/event-stream": streamEventSchema }),
      },
    },
  },
  errors: transcriptionErrors,
});

/** The recording's file part: 400 naming what was wrong when it is missing or empty. */
function uploadOf(body: ReturnType<typeof readMultipart>): UploadedFile {
  const upload = body.file("file");
  if (!upload) {
    throw new AppError("missing_audio", 'Send the recording as a multipart file field named "file".', {
      details: { param: "file" },
    });
  }
  if (upload.audio.length === 0) {
    const name = upload.filename ? `"${upload.filename}"` : "sent";
    throw new AppError("missing_audio", `The file ${name} is empty (0 bytes): send the recording's bytes.`, {
      details: { param: "file" },
    });
  }
  return upload;
}

const sse = (event: unknown) => `data: ${JSON.stringify(event)}\n\n`;

/**
 * The events as server-sent events, each written as it comes. A failure after the first event can
 * no longer change the status: it is one more event carrying the error in OpenAI's shape, which
 * the SDKs raise as an APIError.
 */
function eventStream(
  iterator: AsyncIterator<TranscriptEvent>,
  signal: AbortSignal,
  logger: Logger | undefined,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(sse(next.value)));
      } catch (error) {
        if (signal.aborted) return controller.close();
        // The status line said 200 already: this line is what tells the operator it failed.
        if (error instanceof AppError)
          logger?.warn("transcription stream failed", { code: error.code, message: error.message });
        else logger?.error("transcription stream failed", { error });
        const known =
          error instanceof AppError ? error : new AppError("internal", "The transcription failed.");
        const { body } = renderEnvelope("openai", known);
        controller.enqueue(encoder.encode(sse({ type: "error", ...(body as object) })));
        controller.close();
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

export function createOpenAiRoutes(deps: {
  transcriber: Transcriber;
  vad: Pick<Vad, "stream">;
  engines: EngineContext;
  /** The longest recording taken (max_audio_seconds), in ms. */
  maxAudioMs(): number;
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
      const upload = uploadOf(body);
      // OpenAI's names mean the active engine and model; an installed model's id selects it; else 404.
      const chosen = chooseOpenAiModel(fields.model, installed());
      const request: DictationRequest = {
        source: "openai",
        appContext: parseAppContext(c.req.header("x-app-context")),
        language: fields.language,
        skipPostProcess: c.req.header("x-skip-post-process")?.toLowerCase() === "true",
        keyName: keyNameOf(requestInfoOf(c)?.principal ?? nobody),
        engine: chosen?.engine,
        model: chosen?.model,
        prompt: fields.prompt,
        keywords: fields.keywords,
      };
      const common = { audio: upload.audio, contentType: upload.contentType, signal: c.req.raw.signal };
      if (fields.stream && task === "transcribe") {
        const events = await openTranscriptStream(deps, { ...common, request });
        return c.body(eventStream(events, c.req.raw.signal, requestInfoOf(c)?.logger), 200, {
          "Content-Type": "text/event-stream; charset=utf-8",
          "Cache-Control": "no-cache",
        });
      }
      const result = await deps.transcriber.transcribe({
        ...common,
        request: {
          ...request,
          temperature: fields.temperature,
          translate: task === "translate",
          words: fields.words,
        },
        detail: fields.responseFormat !== "json" && fields.responseFormat !== "text",
      });
      const rendered = renderTranscription(result, {
        format: fields.responseFormat,
        task,
        temperature: fields.temperature ?? 0,
        words: fields.words,
      });
      return c.body(rendered.body, 200, { "Content-Type": rendered.contentType });
    };

  return documentedRoutes(deps.docs, "/v1", "OpenAI", { envelope: "openai" })
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
        errors: ["model_not_found"],
      },
      (c) => {
        const { id } = c.req.valid("param");
        const found = listOpenAiModels(installed()).find((model) => model.id === id);
        if (!found) throw modelNotFound(id);
        return c.json(found);
      },
    );
}
