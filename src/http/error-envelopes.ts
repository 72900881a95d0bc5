// The shapes an error leaves svc in, chosen by the route a request reaches (route-table.ts's
// `envelope`): svc's own `{"error":{code,message,details?}}`, and OpenAI's
// `{"error":{message,type,param,code}}` under /v1, which its SDKs raise as their typed errors; and
// by who asks: the Freestyle desktop app reads `{"error":"<message>","code"}` (src/desktop/).
// A leaf of http/: the renderer, the request info and the API reference read it.
import * as v from "valibot";

export type EnvelopeName = "svc" | "openai" | "freestyle";

/** A failure as the renderer knows it: svc's code, status, message and details. */
export interface RenderableError {
  status: number;
  code: string;
  message: string;
  details?: unknown;
}

const openAiType = (status: number): string =>
  status === 401
    ? "authentication_error"
    : status === 403
      ? "permission_error"
      : status === 429
        ? "rate_limit_error"
        : status >= 500
          ? "server_error"
          : "invalid_request_error";

/**
 * The request field a code is about, for OpenAI's `param`, where the error's details name none.
 * The SDKs show `param` beside the message; a language or file error without one leaves the
 * caller guessing which field to fix.
 */
const openAiParams: Record<string, string> = {
  invalid_language: "language",
  unsupported_language: "language",
  missing_audio: "file",
  invalid_multipart: "file",
  unsupported_audio: "file",
  invalid_audio: "file",
  audio_too_long: "file",
  model_not_found: "model",
  translation_unsupported: "model",
  invalid_model: "model",
};

/**
 * OpenAI answers every upload it cannot use 400 `invalid_request_error` (the SDKs' BadRequestError),
 * where svc's own API says 415 (a codec it does not decode) or 422 (damaged audio, a language the
 * model does not speak). Under /v1 those are 400; svc's code stays in `code`.
 */
const openAiStatus = (status: number): number => (status === 415 || status === 422 ? 400 : status);

function paramOf(error: RenderableError): string | null {
  const details = error.details;
  if (details && typeof details === "object" && "param" in details && typeof details.param === "string")
    return details.param;
  return openAiParams[error.code] ?? null;
}

/** The status and body `error` leaves in under `envelope`. */
export function renderEnvelope(
  envelope: EnvelopeName,
  error: RenderableError,
): { status: number; body: unknown } {
  if (envelope === "openai") {
    const status = openAiStatus(error.status);
    return {
      status,
      body: {
        error: { message: error.message, type: openAiType(status), param: paramOf(error), code: error.code },
      },
    };
  }
  const { code, message, details } = error;
  if (envelope === "freestyle") return { status: error.status, body: { error: message, code } };
  return {
    status: error.status,
    body: { error: details === undefined ? { code, message } : { code, message, details } },
  };
}

/** The status a code's error is answered with under `envelope` (the API reference lists it there). */
export const envelopeStatus = (envelope: EnvelopeName, status: number): number =>
  envelope === "openai" ? openAiStatus(status) : status;

/**
 * An error body under each envelope, as valibot schemas: the API reference documents them, and a
 * stream's error event (/v1's `stream: true`) carries OpenAI's inside it.
 */
export const errorBodySchemas = {
  svc: v.object({
    error: v.object({ code: v.string(), message: v.string(), details: v.optional(v.unknown()) }),
  }),
  openai: v.object({
    error: v.object({
      message: v.string(),
      type: v.string(),
      param: v.nullable(v.string()),
      code: v.nullable(v.string()),
    }),
  }),
  freestyle: v.object({ error: v.string(), code: v.string() }),
} satisfies Record<EnvelopeName, v.GenericSchema>;
