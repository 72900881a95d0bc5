import { AppError } from "../../../errors.ts";
import { engineLanguage } from "../../language.ts";
import { WHISPER_LANGUAGES } from "../languages.ts";
import { SAMPLE_RATE } from "../types.ts";

/** The encoder sees 30 s as 1500 positions: one per 20 ms, i.e. per 320 samples at 16 kHz. */
const SAMPLES_PER_POSITION = SAMPLE_RATE / 50;
const FULL_AUDIO_CTX = 1500;
/** ~0.64 s of trailing context so the last word is not cut off at the edge of the window. */
const MARGIN_POSITIONS = 32;
const MIN_AUDIO_CTX = 128;

/**
 * whisper.cpp always encodes a 30 s window; `audio_ctx` shrinks it. For a clip of `n` samples:
 *   audio_ctx = clamp(roundUp32(ceil(n / 320) + 32), 128, 1500)
 * (50 positions per second plus a 0.64 s margin, in steps of 32). The notes measured a 4.8 s clip on
 * base.en, 2 threads: 2.7 s → 0.7 s. Clips longer than one window keep the full context (0), since
 * every window is encoded with the same `audio_ctx` and a short one would truncate them.
 */
export function audioCtxFor(samples: number): number {
  if (samples > FULL_AUDIO_CTX * SAMPLES_PER_POSITION) return 0;
  const positions = Math.ceil(samples / SAMPLES_PER_POSITION) + MARGIN_POSITIONS;
  const ctx = Math.max(MIN_AUDIO_CTX, Math.ceil(positions / 32) * 32);
  return ctx >= FULL_AUDIO_CTX ? 0 : ctx;
}

/** The language to ask whisper.cpp for: a known code, "auto" on multilingual models, "en" otherwise. */
export function resolveLanguage(requested: string | undefined, multilingual: boolean): string {
  const lang = engineLanguage(requested ?? "");
  if (lang === "" || lang === "auto") return multilingual ? "auto" : "en";
  if (!WHISPER_LANGUAGES.has(lang)) {
    throw new AppError("unsupported_language", `Whisper does not know the language "${requested}".`, {
      details: { language: requested, hint: "Send an ISO 639-1 code such as en, de or fr, or auto." },
    });
  }
  if (!multilingual && lang !== "en") {
    throw new AppError(
      "unsupported_language",
      `The loaded model is English-only; it cannot transcribe "${lang}".`,
      {
        details: {
          language: lang,
          hint: "Use a multilingual model (tiny, base, small) for other languages.",
        },
      },
    );
  }
  return lang;
}

export interface DecodeSettings {
  threads: number;
  /** 1 = greedy decoding (lowest latency); >1 = beam search with that width. */
  beamSize: number;
  /** whisper's temperature fallback step; 0 disables re-decoding on low-confidence output. */
  temperatureIncrement: number;
  /** Caps tokens per segment, bounding runaway repetition loops; 0 = no cap. */
  maxTokensPerSegment: number;
}

/** Parameters in the shape smart-whisper's addon reads (whisper_full_params field names). */
export function whisperParams(
  settings: DecodeSettings,
  call: {
    language: string;
    prompt: string | undefined;
    audioCtx: number;
    translate?: boolean;
    words?: boolean;
    temperature?: number;
  },
): Record<string, unknown> {
  const params: Record<string, unknown> = {
    strategy: settings.beamSize > 1 ? 1 : 0,
    beam_size: settings.beamSize,
    best_of: 5,
    n_threads: settings.threads,
    language: call.language,
    audio_ctx: call.audioCtx,
    temperature_inc: settings.temperatureIncrement,
    max_tokens: settings.maxTokensPerSegment,
    no_context: true,
    suppress_blank: true,
    suppress_non_speech_tokens: true,
    print_progress: false,
    print_realtime: false,
    print_timestamps: false,
    format: "detail",
  };
  if (call.prompt?.trim()) params.initial_prompt = call.prompt.trim();
  if (call.translate) params.translate = true;
  if (call.words) params.token_timestamps = true;
  if (call.temperature !== undefined) params.temperature = call.temperature;
  return params;
}
