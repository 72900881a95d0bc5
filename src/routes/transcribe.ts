import { Hono } from "hono";
import * as v from "valibot";
import { ACCEPTED_AUDIO } from "../dictation/audio/errors.ts";
import { parseMediaType } from "../dictation/audio/media-type.ts";
import { engineIds } from "../dictation/engines/ids.ts";
import { languageSchema } from "../dictation/language.ts";
import type { TranscribeResult, Transcriber } from "../dictation/transcriber.ts";
import { AppError } from "../errors.ts";
import { parseAppContext } from "../formats/app-context.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { partContentType } from "../http/multipart.ts";
import { requestInfoOf } from "../http/request-info.ts";
import type { AppEnv } from "../http/types.ts";
import { parseOrThrow } from "../validation.ts";

const timingSchema = v.object({
  decode: v.number(),
  queue: v.number(),
  engine: v.number(),
  cleanup: v.number(),
  dictionary: v.number(),
  plugins: v.number(),
});

export const transcribeResultSchema = v.object({
  text: v.string(),
  raw: v.string(),
  language: v.string(),
  audioDurationMs: v.number(),
  durationMs: v.number(),
  engine: v.picklist(engineIds),
  model: v.string(),
  historyId: v.nullable(v.number()),
  format: v.nullable(v.object({ id: v.number(), label: v.string() })),
  timings: timingSchema,
});

interface Upload {
  audio: Uint8Array;
  contentType: string | undefined;
}

/** Raw audio bytes with their content type, or multipart with the file in `audio` (or `file`). */
async function readUpload(request: Request): Promise<Upload> {
  const type = request.headers.get("content-type") ?? undefined;
  if (type?.toLowerCase().startsWith("multipart/form-data")) {
    const body = new Uint8Array(await request.arrayBuffer());
    const form = await new Response(body, { headers: { "content-type": type } }).formData().catch(() => {
      throw new AppError(400, "invalid_multipart", "The multipart body could not be parsed.");
    });
    const field = form.has("audio") ? "audio" : "file";
    const file = form.get(field);
    if (!(file instanceof Blob)) {
      throw new AppError(
        400,
        "missing_audio",
        'Send the recording as a multipart file field named "audio" (or "file").',
      );
    }
    // The part's own type, parameters included: raw PCM needs its rate and channels.
    const boundary = parseMediaType(type)?.params.boundary;
    const partType = boundary === undefined ? undefined : partContentType(body, boundary, field);
    return {
      audio: new Uint8Array(await file.arrayBuffer()),
      contentType: partType ?? (file.type || undefined),
    };
  }
  const audio = new Uint8Array(await request.arrayBuffer());
  if (audio.length === 0) {
    throw new AppError(400, "missing_audio", `Send the recording as the request body. ${ACCEPTED_AUDIO}`);
  }
  return { audio, contentType: type };
}

function serverTiming(result: TranscribeResult): string {
  return [
    ...Object.entries(result.timings).map(([name, ms]) => `${name};dur=${ms}`),
    `total;dur=${result.durationMs}`,
  ].join(", ");
}

/** Every failure POST /api/transcribe answers with, by status; the README lists the same. */
export const transcribeErrors: Record<number, { description: string }> = {
  400: {
    description:
      "`missing_audio` (empty body or no `audio`/`file` part), `invalid_multipart`, `invalid_app_context`, `invalid_engine_option` (the remote engine URL setting is not http(s))",
  },
  408: {
    description:
      "`request_timeout` (the body did not arrive within SVC_BODY_TIMEOUT_MS, or slower than SVC_BODY_MIN_RATE; the connection is closed)",
  },
  413: {
    description: "`payload_too_large` (over SVC_MAX_BODY_SIZE), `audio_too_long` (over max_audio_seconds)",
  },
  415: { description: "`unsupported_audio`, with the accepted formats in details" },
  422: {
    description:
      "`invalid_audio` (damaged or truncated), `unsupported_language` (the engine or model cannot), `invalid_model` (the selected model file is not a usable whisper model)",
  },
  500: { description: "`engine_failed` (the local engine failed on this input), `internal`" },
  502: {
    description:
      "the remote server: `engine_unreachable`, `engine_unauthorized` (key refused), `engine_rejected` (4xx), `engine_failed` (5xx), `engine_bad_response` (an unreadable reply)",
  },
  503: {
    description:
      "`busy` (queue full, or SVC_MAX_UPLOADS bodies already arriving; Retry-After), `engine_busy` (remote rate limit; Retry-After), `model_unavailable` (says how to get one), `engine_unavailable`, `engine_closed` (shutting down)",
  },
  504: {
    description:
      "`timeout` (over transcribe_timeout_seconds), `engine_timeout` (the remote server did not answer in remote_stt_timeout_ms)",
  },
  507: {
    description:
      "`storage_full` (the disk holding the database is full: the transcript was not stored in history)",
  },
};

export function createTranscribeRoutes(deps: { transcriber: Transcriber; docs: ApiDocs }) {
  deps.docs.add({
    method: "post",
    path: "/api/transcribe",
    tag: "Dictation",
    summary: "Transcribe a recording and return finished text",
    description:
      "Body: the raw audio with its content type (audio/wav, audio/webm, audio/ogg, audio/mpeg, audio/flac, audio/mp4, audio/pcm, audio/L16;rate=…), or multipart/form-data with the file in `audio` (or `file`), typed by the part's own Content-Type with its parameters (raw PCM: audio/L16;rate=16000). Headers: `x-app-context` (JSON {app,title,url} or an app name), `x-language` (auto or an ISO 639 code; a region tag such as en-US or pt_BR counts as its base code), `x-skip-post-process: true`. The response carries a Server-Timing header.",
    bodyTypes: [
      "audio/wav",
      "audio/webm",
      "audio/ogg",
      "audio/mpeg",
      "audio/flac",
      "audio/mp4",
      "audio/pcm",
      "multipart/form-data",
    ],
    responses: {
      200: { description: "The transcript", schema: transcribeResultSchema },
      ...transcribeErrors,
    },
  });
  return new Hono<AppEnv>().post("/", async (c) => {
    // Bun closes a connection idle for `idleTimeout`; a long transcription is not idle.
    requestInfoOf(c)?.server?.timeout(c.req.raw, 0);
    const languageRaw = c.req.header("x-language");
    const language = languageRaw
      ? parseOrThrow(languageSchema, languageRaw, "invalid_language", "x-language header")
      : undefined;
    const appContext = parseAppContext(c.req.header("x-app-context"));
    const upload = await readUpload(c.req.raw);
    const result = await deps.transcriber.transcribe({
      ...upload,
      appContext,
      language,
      skipPostProcess: c.req.header("x-skip-post-process")?.toLowerCase() === "true",
      signal: c.req.raw.signal,
    });
    c.header("Server-Timing", serverTiming(result));
    return c.json(result);
  });
}
