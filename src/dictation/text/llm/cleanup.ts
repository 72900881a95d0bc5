import * as v from "valibot";
import { reasonOf } from "../../../errors.ts";
import { buildCleanupMessages } from "./prompt.ts";
import { type RejectionReason, unwrapReply, validateRewrite } from "./validation.ts";

/**
 * The optional LLM cleanup pass against any OpenAI-compatible chat-completions endpoint
 * (OpenAI, Groq, Ollama, llama.cpp, vLLM, LM Studio). It never throws for endpoint trouble: every
 * failure comes back as a reason the pipeline records before falling back to the deterministic
 * text.
 */

export interface LlmEndpoint {
  /** Base URL including the API version, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer …` when set. */
  apiKey: string | null;
}

export interface LlmCleanupRequest {
  /** The deterministic cleanup's output. */
  text: string;
  /** The matched format's instructions, if any. */
  instructions: string | null;
  vocabulary: readonly string[];
  language: string | null;
  /** Whole-call budget including reading the reply; default 4000 ms. */
  timeoutMs?: number;
  /** The caller's cancellation (the client went away). */
  signal?: AbortSignal;
}

export type LlmFailureReason =
  | "timeout"
  | "aborted"
  | "unreachable"
  | "http_error"
  | "invalid_response"
  | RejectionReason;

export type LlmCleanupResult =
  | { ok: true; text: string }
  | { ok: false; reason: LlmFailureReason; detail: string };

export const DEFAULT_LLM_TIMEOUT_MS = 4000;

const completionSchema = v.object({
  choices: v.pipe(
    v.array(
      v.object({
        message: v.object({ content: v.nullish(v.string()) }),
        finish_reason: v.nullish(v.string()),
      }),
    ),
    v.minLength(1),
  ),
});

const fail = (reason: LlmFailureReason, detail: string): LlmCleanupResult => ({ ok: false, reason, detail });

/** Enough room for a rewrite of the same length, plus reasoning models' preambles, never unbounded. */
const maxTokens = (text: string): number => Math.min(8192, Math.max(512, Math.ceil(text.length / 2) + 256));

function chatCompletionsUrl(baseUrl: string): string {
  return `${baseUrl.trim().replace(/\/+$/u, "")}/chat/completions`;
}

export async function runLlmCleanup(
  endpoint: LlmEndpoint,
  request: LlmCleanupRequest,
): Promise<LlmCleanupResult> {
  const timeoutMs = request.timeoutMs ?? DEFAULT_LLM_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = request.signal ? AbortSignal.any([timeout, request.signal]) : timeout;
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
  const body = JSON.stringify({
    model: endpoint.model,
    messages: buildCleanupMessages(request),
    temperature: 0,
    max_tokens: maxTokens(request.text),
    stream: false,
  });

  let status: number;
  let payload: string;
  try {
    const response = await fetch(chatCompletionsUrl(endpoint.baseUrl), {
      method: "POST",
      headers,
      body,
      signal,
    });
    status = response.status;
    payload = await response.text();
  } catch (error) {
    if (timeout.aborted) return fail("timeout", `no complete reply within ${timeoutMs} ms`);
    if (request.signal?.aborted) return fail("aborted", "the request was cancelled");
    return fail("unreachable", reasonOf(error));
  }
  if (status < 200 || status > 299) {
    return fail("http_error", `HTTP ${status}: ${payload.slice(0, 200).trim()}`);
  }
  return interpret(payload, request);
}

function interpret(payload: string, request: LlmCleanupRequest): LlmCleanupResult {
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    return fail("invalid_response", `the reply is not JSON: ${payload.slice(0, 120)}`);
  }
  const parsed = v.safeParse(completionSchema, json);
  if (!parsed.success) {
    return fail("invalid_response", `the reply is not a chat completion: ${v.summarize(parsed.issues)}`);
  }
  const [choice] = parsed.output.choices;
  if (choice?.finish_reason === "length")
    return fail("invalid_response", "the reply was cut off (max_tokens)");
  const content = choice?.message.content;
  if (typeof content !== "string") return fail("invalid_response", "the reply has no message content");
  const verdict = validateRewrite(request.text, unwrapReply(content, request.text), request.vocabulary);
  return verdict.ok ? verdict : fail(verdict.reason, verdict.detail);
}
