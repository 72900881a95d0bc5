import { AppError, reasonOf } from "../../../errors.ts";
import { encodeWav } from "../../audio/index.ts";
import { engineLanguage } from "../../language.ts";
import type { SpeechEngine, TranscribeOptions, TranscriptionResult } from "../types.ts";
import { SAMPLE_RATE } from "../types.ts";
import { parseTranscription, upstreamError } from "./response.ts";

export interface RemoteEngineOptions {
  /** API root of an OpenAI-compatible server, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  /** Model name the server expects (`whisper-1`, `whisper-large-v3`, …). */
  model: string;
  /** Sent as `Authorization: Bearer …` when set. */
  apiKey?: string;
  /** Limit for one attempt, in ms (default 60 s); a timed-out attempt is not retried. */
  timeoutMs?: number;
  /** Extra attempts after a connection failure or a 5xx answer (default 2). */
  retries?: number;
  /** Backoff before the first retry, doubled for each further one, with jitter (default 250 ms). */
  retryDelayMs?: number;
}

type ResponseFormat = "verbose_json" | "json";

function endpoint(baseUrl: string, task: "transcriptions" | "translations" = "transcriptions"): URL {
  try {
    const url = new URL(`${baseUrl.replace(/\/+$/, "")}/audio/${task}`);
    if (url.protocol === "http:" || url.protocol === "https:") return url;
  } catch {}
  throw new AppError("invalid_engine_option", `The remote engine URL "${baseUrl}" is not an http(s) URL.`, {
    details: { hint: "Use the API root, e.g. https://api.openai.com/v1 or http://gpu-box:8000/v1." },
  });
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Any OpenAI-compatible `POST /audio/transcriptions` server (OpenAI, Groq, speaches, a whisper.cpp
 * server, a GPU pool behind a load balancer). Asks for `verbose_json` (segments, detected language)
 * and switches to plain `json` for good when a server's 4xx answer names that format.
 */
export function createRemoteEngine(options: RemoteEngineOptions): SpeechEngine {
  const url = endpoint(options.baseUrl);
  const translations = endpoint(options.baseUrl, "translations");
  const server = url.host;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const retries = options.retries ?? 2;
  const retryDelayMs = options.retryDelayMs ?? 250;
  // Another svc upstream (scale-out) answers its engine's text: this svc runs the text pipeline
  // once, with its own dictionary and plugins. Other servers ignore the header.
  const headers: Record<string, string> = { "x-skip-post-process": "true" };
  if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;
  let format: ResponseFormat = "verbose_json";
  let closed = false;

  function form(
    wav: Uint8Array<ArrayBuffer>,
    opts: TranscribeOptions,
    language: string | undefined,
  ): FormData {
    const body = new FormData();
    body.append("file", new Blob([wav], { type: "audio/wav" }), "audio.wav");
    body.append("model", options.model);
    body.append("response_format", format);
    // Translation has no language field: its output is English.
    if (language && !opts.translate) body.append("language", language);
    if (opts.prompt?.trim()) body.append("prompt", opts.prompt.trim());
    if (opts.temperature !== undefined) body.append("temperature", String(opts.temperature));
    if (opts.words && format === "verbose_json" && !opts.translate) {
      body.append("timestamp_granularities[]", "segment");
      body.append("timestamp_granularities[]", "word");
    }
    return body;
  }

  async function transcribe(pcm: Float32Array, opts: TranscribeOptions = {}): Promise<TranscriptionResult> {
    if (closed) throw new AppError("engine_closed", "The remote engine has been closed.");
    opts.signal?.throwIfAborted();
    // OpenAI's API takes ISO 639-1 codes only: "pt-br" is sent as "pt".
    const requested = opts.language === undefined ? undefined : engineLanguage(opts.language);
    const language = requested && requested !== "auto" ? requested : undefined;
    const durationMs = Math.round((pcm.length / SAMPLE_RATE) * 1000);
    const wav = encodeWav(pcm);
    let retry = 0;
    for (;;) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
      const sentFormat = format;
      let status: number;
      let body: string;
      let retryAfter: string | null;
      try {
        const target = opts.translate ? translations : url;
        const res = await fetch(target, { method: "POST", headers, body: form(wav, opts, language), signal });
        ({ status } = res);
        retryAfter = res.headers.get("retry-after");
        body = await res.text();
      } catch (error) {
        if (opts.signal?.aborted) throw opts.signal.reason;
        if (timeout.aborted) {
          throw new AppError(
            "engine_timeout",
            `The transcription server ${server} did not answer within ${timeoutMs} ms.`,
            {
              details: { server, timeoutMs },
            },
          );
        }
        if (retry < retries) {
          await sleep(retryDelayMs * 2 ** retry++ * (0.5 + Math.random()), opts.signal);
          continue;
        }
        throw new AppError("engine_unreachable", `The transcription server ${server} cannot be reached.`, {
          details: {
            server,
            attempts: retry + 1,
            message: reasonOf(error),
          },
          cause: error,
        });
      }
      if (status >= 200 && status < 300) {
        return parseTranscription(body, { language: language ?? "und", durationMs, server });
      }
      // e.g. OpenAI's gpt-4o-transcribe models: "response_format 'verbose_json' is not compatible…"
      if (
        status >= 400 &&
        status < 500 &&
        sentFormat === "verbose_json" &&
        /response.?format|verbose/i.test(body)
      ) {
        format = "json";
        continue;
      }
      if (status >= 500 && retry < retries) {
        await sleep(retryDelayMs * 2 ** retry++ * (0.5 + Math.random()), opts.signal);
        continue;
      }
      throw upstreamError(server, status, body, retryAfter);
    }
  }

  return {
    id: "remote",
    transcribe,
    async close() {
      closed = true;
    },
  };
}
