import type { Server } from "bun";
import type { TestApp } from "./app.ts";

/** A chat-completions request as the stand-in received it. */
export interface ChatRequest {
  model: string;
  messages: { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  authorization: string | null;
}

/** What the stand-in answers: a reply's text, or a whole chat-completions message. */
type Reply = string | { content?: string | null; tool_calls?: unknown[] };

/**
 * A real HTTP server in place of an OpenAI-compatible LLM (Ollama, llama.cpp, …): each
 * `POST …/chat/completions` is recorded and answered by `reply`.
 */
export interface LlmServer {
  /** The base URL as `llm_base_url` takes it: `http://127.0.0.1:<port>/v1`. */
  readonly url: string;
  readonly requests: ChatRequest[];
  stop(): void;
  [Symbol.dispose](): void;
}

export function llmServer(reply: (request: ChatRequest) => Reply): LlmServer {
  const requests: ChatRequest[] = [];
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      if (request.method !== "POST" || !new URL(request.url).pathname.endsWith("/chat/completions"))
        return Response.json({ error: { message: "not found" } }, { status: 404 });
      const body = (await request.json()) as Omit<ChatRequest, "authorization">;
      const received = { ...body, authorization: request.headers.get("authorization") };
      requests.push(received);
      const answer = reply(received);
      const message = typeof answer === "string" ? { content: answer } : answer;
      const calls = message.tool_calls ?? [];
      return Response.json({
        id: `chatcmpl-${requests.length}`,
        object: "chat.completion",
        model: body.model,
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: message.content ?? null,
              ...(calls.length ? { tool_calls: calls } : {}),
            },
            finish_reason: calls.length ? "tool_calls" : "stop",
          },
        ],
        usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
      });
    },
  });
  const stop = () => void server.stop(true);
  return { url: `http://127.0.0.1:${server.port}/v1`, requests, stop, [Symbol.dispose]: stop };
}

/** Points a test app's LLM settings at `server`. */
export function useLlmServer(
  app: Pick<TestApp, "services">,
  server: { url: string },
  apiKey = "sk-test",
): void {
  app.services.settings.set("llm_base_url", server.url);
  app.services.settings.set("llm_model", "stand-in");
  app.services.settings.set("llm_api_key", apiKey);
}
