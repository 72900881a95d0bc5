import { afterEach, describe, expect, test } from "bun:test";
import { generateText, type LanguageModel, stepCountIs, streamText, tool } from "ai";
import { z } from "zod";
import { createPluginLlm } from "../../../../src/dictation/text/llm/plugin-llm.ts";
import { type LlmServer, llmServer } from "../../../helpers/llm-server.ts";

// api.llm against a chat-completions stand-in: its own generateText, and getModel() handed to the
// Vercel AI SDK (`ai` 6) as Freestyle's voice-commands plugin does, tools and all.

const servers: LlmServer[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop();
});

function endpointOf(server: LlmServer) {
  return { baseUrl: server.url, model: "stand-in", apiKey: "sk-secret", timeoutMs: 4000 };
}

describe("api.llm", () => {
  test("generateText sends system and prompt with svc's key, and answers text and usage", async () => {
    const server = llmServer(() => "yes");
    servers.push(server);
    const llm = createPluginLlm(endpointOf(server));
    expect({ providerId: llm.providerId, modelId: llm.modelId }).toEqual({
      providerId: "openai-compatible",
      modelId: "stand-in",
    });
    const result = await llm.generateText({ system: "Answer yes or no.", prompt: "Is this a command?" });
    expect(result).toEqual({ text: "yes", usage: { inputTokens: 11, outputTokens: 7 } });
    expect(server.requests[0]).toMatchObject({
      model: "stand-in",
      authorization: "Bearer sk-secret",
      messages: [
        { role: "system", content: "Answer yes or no." },
        { role: "user", content: "Is this a command?" },
      ],
    });
  });

  test("generateText stops when its signal aborts, and reports an endpoint's error", async () => {
    const server = llmServer(() => "late");
    servers.push(server);
    const llm = createPluginLlm(endpointOf(server));
    const controller = new AbortController();
    controller.abort(new Error("the dictation was aborted"));
    await expect(llm.generateText({ prompt: "x", signal: controller.signal })).rejects.toThrow();
    const down = createPluginLlm({ ...endpointOf(server), baseUrl: "http://127.0.0.1:9/v1" });
    await expect(down.generateText({ prompt: "x" })).rejects.toThrow();
  });

  test("getModel() is a language model the AI SDK runs, with a tool call round trip", async () => {
    const server = llmServer((request) => {
      const last = request.messages.at(-1);
      if (last?.role === "tool") return `done: ${last.content}`;
      return {
        content: null,
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "lights", arguments: '{"room":"kitchen"}' } },
        ],
      };
    });
    servers.push(server);
    const model = createPluginLlm(endpointOf(server)).getModel() as LanguageModel;
    const switched: string[] = [];
    const result = await generateText({
      model,
      system: "You control the lights.",
      prompt: "lights on in the kitchen",
      tools: {
        lights: tool({
          description: "Switch the lights on in a room",
          inputSchema: z.object({ room: z.string() }),
          execute: async ({ room }) => {
            switched.push(room);
            return `on in ${room}`;
          },
        }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(switched).toEqual(["kitchen"]);
    expect(result.text).toBe("done: on in kitchen");
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]?.tools?.[0]?.function.name).toBe("lights");
    expect(server.requests[1]?.messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
    ]);
  });

  test("getModel() streams too: the reply arrives as text deltas", async () => {
    const server = llmServer(() => "streamed reply");
    servers.push(server);
    const model = createPluginLlm(endpointOf(server)).getModel() as LanguageModel;
    const stream = streamText({ model, prompt: "hi" });
    let text = "";
    for await (const delta of stream.textStream) text += delta;
    expect(text).toBe("streamed reply");
  });
});
