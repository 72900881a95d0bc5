import type { Context } from "hono";
import * as v from "valibot";
import { keyNameOf, nobody } from "../access/principal.ts";
import { withCleaned } from "../desktop/answers.ts";
import { ACCEPTED_AUDIO } from "../dictation/audio/index.ts";
import { languageSchema } from "../dictation/language.ts";
import { type TranscribeResult, transcribeResultSchema } from "../dictation/result.ts";
import type { Transcriber } from "../dictation/transcriber.ts";
import { type ErrorCode, engineRunErrors } from "../error-codes.ts";
import { AppError } from "../errors.ts";
import { parseAppContext } from "../formats/app-context.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { documentedRoutes, type RouteSpec } from "../http/documented-routes.ts";
import { readMultipart, type UploadedFile } from "../http/multipart.ts";
import { requestInfoOf } from "../http/request-info.ts";
import type { AppEnv } from "../http/types.ts";
import { parseOrThrow } from "../validation.ts";

/** Raw audio bytes with their content type, or multipart with the file in `audio` (or `file`). */
async function readUpload(c: Context<AppEnv>): Promise<UploadedFile> {
  const type = c.req.header("content-type");
  // The body guard has buffered the body: this is that buffer, not a copy.
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  if (type?.toLowerCase().startsWith("multipart/form-data")) {
    const body = readMultipart(bytes, type);
    const upload = body.file("audio") ?? body.file("file");
    if (!upload) {
      throw new AppError(
        "missing_audio",
        'Send the recording as a multipart file field named "audio" (or "file").',
      );
    }
    return upload;
  }
  if (bytes.length === 0) {
    throw new AppError("missing_audio", `Send the recording as the request body. ${ACCEPTED_AUDIO}`);
  }
  return { audio: bytes, contentType: type };
}

function serverTiming(result: TranscribeResult): string {
  return [
    ...Object.entries(result.timings).map(([name, ms]) => `${name};dur=${ms}`),
    `total;dur=${result.durationMs}`,
  ].join(", ");
}

/** Every code the dictation path answers with, beyond those the route's shape implies. */
const transcribeErrors = [
  "missing_audio",
  "invalid_multipart",
  "invalid_app_context",
  "invalid_language",
  "audio_too_long",
  "unsupported_audio",
  "invalid_audio",
  ...engineRunErrors,
] as const satisfies readonly ErrorCode[];

/** POST /api/transcribe in the API reference (docs/api.md's error table is generated from it). */
export const transcribeDoc: RouteSpec = {
  summary: "Transcribe a recording and return finished text",
  access: "dictate",
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
  bodyKind: "upload",
  responses: { 200: { description: "The transcript", schema: transcribeResultSchema } },
  errors: transcribeErrors,
};

/** With SVC_FREESTYLE_DESKTOP=1 the answer also carries `cleaned`, which the desktop app pastes. */
const transcribeDocWithCleaned: RouteSpec = {
  ...transcribeDoc,
  responses: {
    200: {
      description: "The transcript",
      schema: v.object({
        ...transcribeResultSchema.entries,
        cleaned: v.pipe(v.string(), v.description('the text to paste: `text` when delivered, else ""')),
      }),
    },
  },
};

export function createTranscribeRoutes(deps: { transcriber: Transcriber; docs: ApiDocs; cleaned?: boolean }) {
  const doc = deps.cleaned ? transcribeDocWithCleaned : transcribeDoc;
  return documentedRoutes(deps.docs, "/api/transcribe", "Dictation").post("/", doc, async (c) => {
    // Bun closes a connection idle for `idleTimeout`; a long transcription is not idle.
    requestInfoOf(c)?.server?.timeout(c.req.raw, 0);
    const languageRaw = c.req.header("x-language");
    const language = languageRaw
      ? parseOrThrow(languageSchema, languageRaw, "invalid_language", "x-language header")
      : undefined;
    const appContext = parseAppContext(c.req.header("x-app-context"));
    const upload = await readUpload(c);
    const result = await deps.transcriber.transcribe({
      ...upload,
      request: {
        appContext,
        language,
        skipPostProcess: c.req.header("x-skip-post-process")?.toLowerCase() === "true",
        keyName: keyNameOf(requestInfoOf(c)?.principal ?? nobody),
      },
      signal: c.req.raw.signal,
    });
    c.header("Server-Timing", serverTiming(result));
    return c.json(deps.cleaned ? withCleaned(result, c.req.header("origin") ?? null) : result);
  });
}
