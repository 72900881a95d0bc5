import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import {
  createRemoteEngine,
  type RemoteEngineOptions,
} from "../../../../src/dictation/engines/remote/engine.ts";
import { rejection } from "../../../helpers/errors.ts";

// A real HTTP server on loopback speaking OpenAI's transcription protocol; each test sets its answers.
type Answer = (form: FormData, request: number) => Response | Promise<Response>;
let answer: Answer;
let received: { authorization: string | null; form: FormData }[] = [];

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const form = await req.formData();
    received.push({ authorization: req.headers.get("authorization"), form });
    return answer(form, received.length);
  },
});
afterAll(() => server.stop(true));
beforeEach(() => {
  received = [];
});

const baseUrl = `http://127.0.0.1:${server.port}/v1`;
const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  Response.json(body, { status, headers });
const verbose = {
  task: "transcribe",
  language: "english",
  duration: 1.5,
  text: " Hello there. General Kenobi. ",
  segments: [
    { id: 0, start: 0, end: 0.8, text: " Hello there." },
    { id: 1, start: 0.8, end: 1.5, text: " General Kenobi." },
  ],
};
const pcm = new Float32Array(1600).map((_, i) => Math.sin(i / 5) * 0.5);
const engine = (options: Partial<RemoteEngineOptions> = {}) =>
  createRemoteEngine({ baseUrl, model: "whisper-1", retryDelayMs: 5, ...options });

describe("remote engine", () => {
  test("posts a WAV with model, language, prompt and verbose_json, and maps the answer", async () => {
    answer = () => json(verbose);
    const result = await engine({ apiKey: "sk-test" }).transcribe(pcm, { language: "EN", prompt: "Kenobi." });
    expect(result).toEqual({
      text: "Hello there. General Kenobi.",
      segments: [
        { startMs: 0, endMs: 800, text: "Hello there." },
        { startMs: 800, endMs: 1500, text: "General Kenobi." },
      ],
      language: "en",
    });
    const [request] = received;
    expect(request?.authorization).toBe("Bearer sk-test");
    expect(
      Object.fromEntries(
        ["model", "language", "prompt", "response_format"].map((k) => [k, request?.form.get(k)]),
      ),
    ).toEqual({ model: "whisper-1", language: "en", prompt: "Kenobi.", response_format: "verbose_json" });
    const file = request?.form.get("file");
    expect(file).toBeInstanceOf(File);
    const bytes = new Uint8Array(await (file as File).arrayBuffer());
    expect(new TextDecoder().decode(bytes.subarray(0, 4))).toBe("RIFF");
    expect(bytes.length).toBe(44 + pcm.length * 2);
  });

  test("sends the primary language of a tag with a region: OpenAI's API takes ISO 639-1 only", async () => {
    answer = () => json({ text: "olá", language: "portuguese" });
    await engine().transcribe(pcm, { language: "pt-BR" });
    expect(received[0]?.form.get("language")).toBe("pt");
  });

  test("sends no key, language or prompt when there are none", async () => {
    answer = () => json({ text: "hi", language: "de" });
    const result = await engine().transcribe(pcm, { language: "auto" });
    expect(result.language).toBe("de");
    expect(received[0]?.authorization).toBeNull();
    expect(received[0]?.form.has("language")).toBe(false);
    expect(received[0]?.form.has("prompt")).toBe(false);
  });

  test("retries after a 500 and succeeds", async () => {
    answer = (_, n) => (n === 1 ? json({ error: { message: "overloaded" } }, 500) : json(verbose));
    expect((await engine().transcribe(pcm)).text).toBe("Hello there. General Kenobi.");
    expect(received).toHaveLength(2);
  });

  test("gives up after the configured retries with 502 engine_server_error", async () => {
    answer = () => json({ error: { message: "down" } }, 503);
    const error = await rejection(engine({ retries: 2 }).transcribe(pcm));
    expect(error).toMatchObject({
      status: 502,
      code: "engine_server_error",
      details: { status: 503, message: "down" },
    });
    expect(received).toHaveLength(3);
  });

  test("answers 504 engine_timeout when the server is too slow, without retrying", async () => {
    answer = async () => {
      await Bun.sleep(1000);
      return json(verbose);
    };
    const started = performance.now();
    const error = await rejection(engine({ timeoutMs: 150 }).transcribe(pcm));
    expect(error).toMatchObject({ status: 504, code: "engine_timeout" });
    expect(performance.now() - started).toBeLessThan(900);
    expect(received).toHaveLength(1);
  });

  test.each([
    ["a body that is not JSON", () => new Response("<html>oops</html>", { status: 200 })],
    ["JSON without text", () => json({ transcript: "hi" })],
  ])("answers 502 engine_bad_response to %s", async (_, reply) => {
    answer = reply;
    expect(await rejection(engine().transcribe(pcm))).toMatchObject({
      status: 502,
      code: "engine_bad_response",
    });
    expect(received).toHaveLength(1);
  });

  test("falls back to json for good when the server refuses verbose_json", async () => {
    answer = (form) =>
      form.get("response_format") === "verbose_json"
        ? json(
            { error: { message: "response_format 'verbose_json' is not compatible with this model" } },
            400,
          )
        : json({ text: "Plain text." });
    const remote = engine();
    expect(await remote.transcribe(pcm)).toEqual({
      text: "Plain text.",
      segments: [{ startMs: 0, endMs: 100, text: "Plain text." }],
      language: "und",
    });
    await remote.transcribe(pcm);
    expect(received.map((r) => r.form.get("response_format"))).toEqual(["verbose_json", "json", "json"]);
  });

  test.each([
    [401, {}, { status: 502, code: "engine_unauthorized" }],
    [429, { "Retry-After": "7" }, { status: 503, code: "engine_busy", headers: { "Retry-After": "7" } }],
    [400, {}, { status: 502, code: "engine_rejected", details: { message: "bad language" } }],
  ])("maps a %i answer to a coded error without retrying", async (status, headers, expected) => {
    answer = () => json({ error: { message: "bad language" } }, status, headers);
    expect(await rejection(engine().transcribe(pcm))).toMatchObject(expected);
    expect(received).toHaveLength(1);
  });

  test("rejects with the caller's abort reason mid-request", async () => {
    answer = async () => {
      await Bun.sleep(1000);
      return json(verbose);
    };
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await rejection(engine().transcribe(pcm, { signal: controller.signal }));
    expect(error instanceof DOMException && error.name === "AbortError").toBe(true);
  });

  test("refuses a base URL that is not http(s)", () => {
    expect(() => createRemoteEngine({ baseUrl: "ftp://x/v1", model: "m" })).toThrow(
      expect.objectContaining({ status: 400, code: "invalid_engine_option" }),
    );
  });
});

describe("remote engine over a failing connection", () => {
  test("retries after the connection is reset", async () => {
    // A TCP front that resets the first connection and relays the following ones to the server.
    let connections = 0;
    const front = Bun.listen<{ queue: Uint8Array[]; relay?: { write(d: Uint8Array): number; end(): void } }>({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        open(socket) {
          socket.data = { queue: [] };
          if (++connections === 1) return void socket.terminate();
          void Bun.connect({
            hostname: "127.0.0.1",
            port: server.port ?? 0,
            socket: {
              open(upstream) {
                socket.data.relay = upstream;
                for (const chunk of socket.data.queue) upstream.write(chunk);
              },
              data: (_, chunk) => void socket.write(chunk),
              close: () => void socket.end(),
            },
          });
        },
        data(socket, chunk) {
          if (socket.data.relay) socket.data.relay.write(chunk);
          else socket.data.queue.push(new Uint8Array(chunk));
        },
        close: (socket) => socket.data.relay?.end(),
      },
    });
    answer = () => json(verbose);
    const remote = engine({ baseUrl: `http://127.0.0.1:${front.port}/v1` });
    expect((await remote.transcribe(pcm.subarray(0, 800))).text).toBe("Hello there. General Kenobi.");
    expect(connections).toBe(2);
    front.stop(true);
  });

  test("answers 502 engine_unreachable when nothing listens", async () => {
    const closed = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = closed.port;
    closed.stop(true);
    const error = await rejection(engine({ baseUrl: `http://127.0.0.1:${port}/v1` }).transcribe(pcm));
    expect(error).toMatchObject({ status: 502, code: "engine_unreachable", details: { attempts: 3 } });
  });
});
