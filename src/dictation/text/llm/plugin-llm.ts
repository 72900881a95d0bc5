import { reasonOf } from "../../../errors.ts";
import type { PluginLlm } from "../../../plugins/hook-api.ts";
import type { LlmEndpoint } from "./cleanup.ts";

/**
 * `api.llm` for plugins: the llm_* endpoint the cleanup pass uses, as a plain `generateText` and
 * as a language model object in the Vercel AI SDK's provider protocol (specification v3, what
 * `ai` 6 calls), so a plugin can hand `getModel()` to `generateText` from `ai` with tools. It
 * speaks OpenAI chat completions, like the cleanup pass; the API key never reaches the plugin.
 */

type Json = Record<string, unknown>;

interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null;
  tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

interface ChatReply {
  text: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: string | null;
  usage: { inputTokens: number; outputTokens: number } | undefined;
}

const asRecord = (value: unknown): Json =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};

const textOf = (parts: unknown): string =>
  Array.isArray(parts)
    ? parts
        .map((part) => asRecord(part))
        .filter((part) => part.type === "text" && typeof part.text === "string")
        .map((part) => part.text)
        .join("")
    : String(parts ?? "");

/** A tool result as the chat-completions `tool` message carries it: text as is, the rest as JSON. */
function toolOutput(output: unknown): string {
  const record = asRecord(output);
  if (record.type === "text" || record.type === "error-text") return String(record.value ?? "");
  return JSON.stringify(record.value ?? output);
}

/** The AI SDK's prompt (system, user, assistant with tool calls, tool results) as chat messages. */
function toChatMessages(prompt: unknown): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const entry of Array.isArray(prompt) ? prompt : []) {
    const message = asRecord(entry);
    const parts = Array.isArray(message.content) ? message.content.map(asRecord) : [];
    if (message.role === "system") messages.push({ role: "system", content: String(message.content ?? "") });
    else if (message.role === "user") messages.push({ role: "user", content: textOf(message.content) });
    else if (message.role === "assistant") {
      const calls = parts
        .filter((part) => part.type === "tool-call")
        .map((part) => ({
          id: String(part.toolCallId),
          type: "function" as const,
          function: {
            name: String(part.toolName),
            arguments: typeof part.input === "string" ? part.input : JSON.stringify(part.input ?? {}),
          },
        }));
      messages.push({
        role: "assistant",
        content: textOf(parts) || null,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      });
    } else if (message.role === "tool") {
      for (const part of parts.filter((item) => item.type === "tool-result")) {
        messages.push({
          role: "tool",
          tool_call_id: String(part.toolCallId),
          content: toolOutput(part.output),
        });
      }
    }
  }
  return messages;
}

const chatUrl = (baseUrl: string) => `${baseUrl.trim().replace(/\/+$/u, "")}/chat/completions`;

function readReply(json: unknown): ChatReply {
  const choice = asRecord(
    Array.isArray(asRecord(json).choices) ? (asRecord(json).choices as unknown[])[0] : null,
  );
  const message = asRecord(choice.message);
  if (Object.keys(message).length === 0) throw new Error("the LLM's reply is not a chat completion");
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.map(asRecord) : [];
  const usage = asRecord(asRecord(json).usage);
  return {
    text: typeof message.content === "string" ? message.content : "",
    toolCalls: calls.map((call, index) => {
      const fn = asRecord(call.function);
      return {
        id: String(call.id ?? `call_${index}`),
        name: String(fn.name),
        arguments: String(fn.arguments ?? "{}"),
      };
    }),
    finishReason: typeof choice.finish_reason === "string" ? choice.finish_reason : null,
    usage:
      typeof usage.prompt_tokens === "number" && typeof usage.completion_tokens === "number"
        ? { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens }
        : undefined,
  };
}

/** One chat-completions call under the endpoint's time limit and the caller's signal. */
async function complete(
  endpoint: LlmEndpoint & { timeoutMs: number },
  body: Json,
  signal: AbortSignal | undefined,
): Promise<ChatReply> {
  const timeout = AbortSignal.timeout(endpoint.timeoutMs);
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
  const response = await fetch(chatUrl(endpoint.baseUrl), {
    method: "POST",
    headers,
    body: JSON.stringify({ model: endpoint.model, stream: false, ...body }),
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  }).catch((error: unknown) => {
    throw new Error(
      timeout.aborted ? `the LLM did not answer within ${endpoint.timeoutMs} ms` : reasonOf(error),
    );
  });
  const payload = await response.text();
  if (!response.ok) throw new Error(`the LLM answered HTTP ${response.status}: ${payload.slice(0, 200)}`);
  return readReply(JSON.parse(payload));
}

const unified = (reason: string | null) =>
  reason === "stop" || reason === "length" || reason === "content_filter"
    ? reason.replace("_", "-")
    : reason === "tool_calls"
      ? "tool-calls"
      : "other";

/** The v3 result's parts and accounting for one reply. */
function v3Result(reply: ChatReply) {
  const content: Json[] = [];
  if (reply.text) content.push({ type: "text", text: reply.text });
  for (const call of reply.toolCalls)
    content.push({ type: "tool-call", toolCallId: call.id, toolName: call.name, input: call.arguments });
  const usage = {
    inputTokens: {
      total: reply.usage?.inputTokens,
      noCache: undefined,
      cacheRead: undefined,
      cacheWrite: undefined,
    },
    outputTokens: { total: reply.usage?.outputTokens, text: undefined, reasoning: undefined },
  };
  return {
    content,
    usage,
    finishReason: { unified: unified(reply.finishReason), raw: reply.finishReason ?? undefined },
  };
}

/** The AI SDK's call options as a chat-completions body. */
function v3Body(options: Json): Json {
  const tools = (Array.isArray(options.tools) ? options.tools : [])
    .map(asRecord)
    .filter((tool) => tool.type === "function")
    .map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    }));
  const choice = asRecord(options.toolChoice);
  const toolChoice =
    choice.type === "tool" ? { type: "function", function: { name: choice.toolName } } : choice.type;
  return {
    messages: toChatMessages(options.prompt),
    ...(typeof options.maxOutputTokens === "number" ? { max_tokens: options.maxOutputTokens } : {}),
    ...(typeof options.temperature === "number" ? { temperature: options.temperature } : {}),
    ...(tools.length > 0 ? { tools, ...(toolChoice ? { tool_choice: toolChoice } : {}) } : {}),
  };
}

/** A LanguageModelV3 over the endpoint; streaming answers the whole reply as one delta. */
function languageModel(endpoint: LlmEndpoint & { timeoutMs: number }) {
  const generate = async (options: Json) => {
    const reply = await complete(endpoint, v3Body(options), options.abortSignal as AbortSignal | undefined);
    return { ...v3Result(reply), warnings: [] };
  };
  return Object.freeze({
    specificationVersion: "v3" as const,
    provider: "svc.openai-compatible",
    modelId: endpoint.model,
    supportedUrls: {},
    doGenerate: generate,
    async doStream(options: Json) {
      const result = await generate(options);
      const parts: Json[] = [{ type: "stream-start", warnings: [] }];
      for (const [index, part] of result.content.entries()) {
        if (part.type === "text") {
          const id = `text-${index}`;
          parts.push(
            { type: "text-start", id },
            { type: "text-delta", id, delta: part.text },
            { type: "text-end", id },
          );
        } else parts.push(part);
      }
      parts.push({ type: "finish", usage: result.usage, finishReason: result.finishReason });
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  });
}

/** `api.llm` over the llm_* endpoint. */
export function createPluginLlm(endpoint: LlmEndpoint & { timeoutMs: number }): PluginLlm {
  let model: ReturnType<typeof languageModel> | undefined;
  return Object.freeze({
    providerId: "openai-compatible",
    modelId: endpoint.model,
    getModel: () => {
      model ??= languageModel(endpoint);
      return model;
    },
    async generateText(options: { prompt: string; system?: string; signal?: AbortSignal }) {
      if (typeof options?.prompt !== "string")
        throw new TypeError("generateText({ prompt }): prompt must be a string");
      const messages: ChatMessage[] = [];
      if (options.system) messages.push({ role: "system", content: options.system });
      messages.push({ role: "user", content: options.prompt });
      const reply = await complete(endpoint, { messages }, options.signal);
      return { text: reply.text, ...(reply.usage ? { usage: reply.usage } : {}) };
    },
  });
}
