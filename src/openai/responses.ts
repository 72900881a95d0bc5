// Renders a transcription in OpenAI's response formats: json, text, srt, vtt, verbose_json
// (`stream=true` is stream.ts).
import { WHISPER_LANGUAGES } from "../dictation/engines/languages.ts";
import type { TranscriptSegment } from "../dictation/engines/types.ts";
import type { Transcription } from "../dictation/result.ts";
import type { ResponseFormat } from "./request.ts";

export interface Rendered {
  body: string;
  contentType: string;
}

const seconds = (ms: number) => Math.round(ms) / 1000;
/** OpenAI's `usage` of a transcription: the audio's whole seconds. */
export const usageOf = (result: Pick<Transcription, "audioDurationMs">) => ({
  type: "duration" as const,
  seconds: Math.ceil(result.audioDurationMs / 1000),
});

/**
 * The timed pieces of the answer: the engine's segments with the dictionary applied. A transcript
 * without timings (a plugin answered it, a remote server sent plain json) is one piece over the clip.
 */
export function timedSegments(result: Transcription): TranscriptSegment[] {
  const segments = (result.segments ?? []).filter((segment) => segment.text !== "");
  if (segments.length > 0 || result.text === "") return segments;
  return [{ startMs: 0, endMs: result.audioDurationMs, text: result.text }];
}

/** zlib's ratio for the text, as whisper reports it: high values mean repetition loops. */
function compressionRatio(text: string): number {
  const bytes = Buffer.byteLength(text);
  return bytes === 0 ? 0 : Math.round((bytes / Bun.gzipSync(text).length) * 1000) / 1000;
}

function verboseJson(
  result: Transcription,
  task: "transcribe" | "translate",
  temperature: number,
  words: boolean,
) {
  const segments = timedSegments(result);
  const body: Record<string, unknown> = {
    task,
    // OpenAI names the language in English ("english"), as whisper does.
    language: WHISPER_LANGUAGES.get(result.language) ?? result.language,
    duration: seconds(result.audioDurationMs),
    text: result.text,
    segments: segments.map((segment, id) => ({
      id,
      // The 30 s window the segment was decoded in, in 10 ms frames, as whisper counts `seek`.
      seek: Math.floor(segment.startMs / 30_000) * 3000,
      start: seconds(segment.startMs),
      end: seconds(segment.endMs),
      text: segment.text,
      tokens: segment.tokens ?? [],
      temperature,
      avg_logprob: segment.avgLogprob ?? 0,
      compression_ratio: compressionRatio(segment.text),
      no_speech_prob: 0,
    })),
    usage: usageOf(result),
  };
  if (words) {
    body.words = segments.flatMap((segment) =>
      (segment.words ?? []).map((word) => ({
        word: word.word,
        start: seconds(word.startMs),
        end: seconds(word.endMs),
      })),
    );
  }
  return body;
}

/** `00:00:01,250` (SRT) or `00:00:01.250` (WebVTT). */
function timestamp(ms: number, separator: "," | "."): string {
  const total = Math.max(0, Math.round(ms));
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  const h = Math.floor(total / 3_600_000);
  const m = Math.floor(total / 60_000) % 60;
  const s = Math.floor(total / 1000) % 60;
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(total % 1000, 3)}`;
}

function subtitles(result: Transcription, kind: "srt" | "vtt"): string {
  const separator = kind === "srt" ? "," : ".";
  const cues = timedSegments(result).map((segment, index) => {
    const time = `${timestamp(segment.startMs, separator)} --> ${timestamp(segment.endMs, separator)}`;
    // A blank line ends a cue; a cue's own text never contains one.
    const text = segment.text.replace(/\n\s*\n/g, "\n");
    return kind === "srt" ? `${index + 1}\n${time}\n${text}\n` : `${time}\n${text}\n`;
  });
  return kind === "srt" ? cues.join("\n") : `WEBVTT\n\n${cues.join("\n")}`;
}

/** The answer in the requested format. */
export function renderTranscription(
  result: Transcription,
  options: { format: ResponseFormat; task: "transcribe" | "translate"; temperature: number; words: boolean },
): Rendered {
  switch (options.format) {
    case "text":
      return { body: `${result.text}\n`, contentType: "text/plain; charset=utf-8" };
    case "srt":
      return { body: subtitles(result, "srt"), contentType: "text/plain; charset=utf-8" };
    case "vtt":
      return { body: subtitles(result, "vtt"), contentType: "text/vtt; charset=utf-8" };
    case "verbose_json":
      return {
        body: JSON.stringify(verboseJson(result, options.task, options.temperature, options.words)),
        contentType: "application/json",
      };
    default:
      return {
        body: JSON.stringify({ text: result.text, usage: usageOf(result) }),
        contentType: "application/json",
      };
  }
}
