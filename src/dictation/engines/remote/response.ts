import { AppError } from "../../../errors.ts";
import { languageCode } from "../languages.ts";
import type { TranscriptionResult, TranscriptSegment, TranscriptWord } from "../types.ts";

/** Turns an OpenAI `json` or `verbose_json` transcription body into our result; throws on anything else. */
export function parseTranscription(
  body: string,
  fallback: { language: string; durationMs: number; server: string },
): TranscriptionResult {
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch {
    throw badResponse(fallback.server, "the body is not JSON", body);
  }
  if (typeof data !== "object" || data === null || typeof (data as { text?: unknown }).text !== "string") {
    throw badResponse(fallback.server, 'the JSON has no "text" string', body);
  }
  const {
    text: raw,
    language,
    segments,
    words,
  } = data as {
    text: string;
    language?: unknown;
    segments?: unknown;
    words?: unknown;
  };
  const text = raw.replace(/\s+/g, " ").trim();
  const detected = typeof language === "string" && language ? languageCode(language) : fallback.language;
  const parsed = parseSegments(segments) ?? wholeClip(text, fallback.durationMs);
  const timed = parseWords(words);
  if (timed) {
    // OpenAI lists words beside the segments: each goes to the segment it starts in.
    for (const segment of parsed) {
      segment.words = timed.filter((word) => word.startMs >= segment.startMs && word.startMs < segment.endMs);
    }
    const last = parsed.at(-1);
    if (last) last.words?.push(...timed.filter((word) => word.startMs >= last.endMs));
  }
  return { text, segments: parsed, language: detected };
}

function parseWords(value: unknown): TranscriptWord[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const words: TranscriptWord[] = [];
  for (const item of value as { word?: unknown; start?: unknown; end?: unknown }[]) {
    if (typeof item?.word !== "string" || typeof item.start !== "number" || typeof item.end !== "number")
      continue;
    words.push({
      word: item.word.trim(),
      startMs: Math.round(item.start * 1000),
      endMs: Math.round(item.end * 1000),
    });
  }
  return words;
}

function parseSegments(value: unknown): TranscriptSegment[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const segments: TranscriptSegment[] = [];
  for (const item of value as { start?: unknown; end?: unknown; text?: unknown }[]) {
    if (typeof item?.start !== "number" || typeof item.end !== "number" || typeof item.text !== "string")
      continue;
    segments.push({
      startMs: Math.round(item.start * 1000),
      endMs: Math.round(item.end * 1000),
      text: item.text.trim(),
    });
  }
  return segments;
}

/** Plain `json` carries no timings: one segment spanning the clip. */
const wholeClip = (text: string, durationMs: number): TranscriptSegment[] =>
  text ? [{ startMs: 0, endMs: durationMs, text }] : [];

function badResponse(server: string, problem: string, body: string): AppError {
  return new AppError(
    "engine_bad_response",
    `The transcription server ${server} sent an unusable reply: ${problem}.`,
    {
      details: { server, body: body.slice(0, 200) },
    },
  );
}

/** The error message inside an OpenAI error envelope, else the start of the body. */
function upstreamMessage(body: string): string {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === "string") return message;
  } catch {}
  return body.slice(0, 200);
}

/** Maps a non-2xx answer that will not be retried to a coded error. */
export function upstreamError(
  server: string,
  status: number,
  body: string,
  retryAfter: string | null,
): AppError {
  const details = { server, status, message: upstreamMessage(body) };
  if (status === 401 || status === 403) {
    return new AppError(
      "engine_unauthorized",
      `The transcription server ${server} refused the API key (${status}).`,
      {
        details,
      },
    );
  }
  if (status === 429) {
    return new AppError("engine_busy", `The transcription server ${server} is rate-limiting requests.`, {
      details,
      headers: retryAfter ? { "Retry-After": retryAfter } : {},
    });
  }
  if (status >= 500) {
    return new AppError("engine_server_error", `The transcription server ${server} failed (${status}).`, {
      details,
    });
  }
  return new AppError(
    "engine_rejected",
    `The transcription server ${server} rejected the request (${status}): ${details.message}`,
    {
      details,
    },
  );
}
