import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { fakeSpeechServer, useSpeechServer } from "../helpers/speech-server.ts";
import { goForward } from "../helpers/sphinx-testdata.ts";
import { syntheticModel } from "../helpers/synthetic-model.ts";

// POST /v1/audio/transcriptions with the sphinx engine on pocketsphinx's goforward recording.

const clip = encodeWav(goForward());

function sphinxApp(): TestApp {
  const app = createTestApp();
  app.services.settings.set("stt_engine", "sphinx");
  return app;
}

// One app (one PocketSphinx worker) for the file: loading the model is most of a request's time.
const shared = sphinxApp();

type Field = [string, string | Blob];

function form(fields: Field[]): FormData {
  const body = new FormData();
  for (const [name, value] of fields) body.append(name, value);
  return body;
}

const audio = (): Field => ["file", new File([clip], "goforward.wav", { type: "audio/wav" })];

async function post(
  app: TestApp,
  fields: Field[],
  headers: Record<string, string> = {},
  path = "/v1/audio/transcriptions",
) {
  return app.request(path, { method: "POST", body: form(fields), headers });
}

interface StreamEvent {
  type: string;
  delta?: string;
  text?: string;
  error?: { code: string };
}

/** A `stream: true` answer's server-sent events, each `data:` line parsed. */
async function streamEvents(res: Response): Promise<StreamEvent[]> {
  return (await res.text())
    .split("\n\n")
    .filter(Boolean)
    .map((block) => JSON.parse(block.replace(/^data: /, "")) as StreamEvent);
}

interface OpenAiError {
  error: { message: string; type: string; param: string | null; code: string | null };
}

describe("POST /v1/audio/transcriptions", () => {
  test("json (the default): the finished text and the audio's duration as usage", async () => {
    const res = await post(shared, [audio(), ["model", "whisper-1"]], { authorization: "Bearer anything" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("application/json");
    expect(await res.json()).toEqual({
      text: "Go forward ten meters",
      usage: { type: "duration", seconds: 3 },
    });
  });

  test("text answers the text as text/plain", async () => {
    const res = await post(shared, [audio(), ["model", "whisper-1"], ["response_format", "text"]]);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await res.text()).toBe("Go forward ten meters\n");
  });

  test("srt and vtt time the engine's segments and read like the text", async () => {
    const app = shared;
    const srt = await (await post(app, [audio(), ["model", "whisper-1"], ["response_format", "srt"]])).text();
    expect(srt).toMatch(/^1\n00:00:00,\d{3} --> 00:00:0\d,\d{3}\nGo forward ten meters\n$/);
    const vtt = await post(app, [audio(), ["model", "whisper-1"], ["response_format", "vtt"]]);
    expect(vtt.headers.get("content-type")).toBe("text/vtt; charset=utf-8");
    expect(await vtt.text()).toMatch(
      /^WEBVTT\n\n00:00:00\.\d{3} --> 00:00:0\d\.\d{3}\nGo forward ten meters\n$/,
    );
  });

  test.each([
    [
      "repeated with brackets",
      [
        ["timestamp_granularities[]", "word"],
        ["timestamp_granularities[]", "segment"],
      ],
    ],
    ["without brackets", [["timestamp_granularities", "word"]]],
    ["comma-joined", [["timestamp_granularities", "segment,word"]]],
  ] as [string, Field[]][])("verbose_json with word timings asked %s", async (_, granularities) => {
    const res = await post(shared, [
      audio(),
      ["model", "whisper-1"],
      ["response_format", "verbose_json"],
      ...granularities,
    ]);
    const body = (await res.json()) as {
      task: string;
      language: string;
      duration: number;
      text: string;
      segments: { start: number; end: number; text: string; id: number }[];
      words: { word: string; start: number; end: number }[];
    };
    expect(body).toMatchObject({
      task: "transcribe",
      language: "english",
      duration: 2.786,
      text: "Go forward ten meters",
    });
    expect(body.segments.map((segment) => segment.text)).toEqual(["Go forward ten meters"]);
    expect(body.words.map((word) => word.word)).toEqual(["Go", "forward", "ten", "meters"]);
    // Words follow one another inside the clip.
    for (const [index, word] of body.words.entries()) {
      expect(word.end).toBeGreaterThan(word.start);
      expect(word.end).toBeLessThanOrEqual(body.duration);
      if (index > 0) expect(word.start).toBeGreaterThanOrEqual(body.words[index - 1]?.end ?? 0);
    }
  });

  test("verbose_json without word timings has no words", async () => {
    const res = await post(shared, [audio(), ["model", "whisper-1"], ["response_format", "verbose_json"]]);
    expect(Object.keys((await res.json()) as object)).not.toContain("words");
  });

  test("stream=true sends the engine's text piece by piece, then done with the finished text", async () => {
    const res = await post(shared, [audio(), ["model", "whisper-1"], ["stream", "true"]]);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const events = await streamEvents(res);
    expect(events.at(-1)).toMatchObject({ type: "transcript.text.done", text: "Go forward ten meters" });
    const deltas = events.filter((event) => event.type === "transcript.text.delta");
    expect(deltas.length).toBeGreaterThan(0);
    // The deltas are the engine's text as it recognised it; done carries it cleaned up.
    expect(deltas.map((event) => event.delta).join("")).toBe("go forward ten meters");
  });

  test("stream=true refuses audio it cannot read before any event, with a plain error answer", async () => {
    const res = await post(shared, [
      ["file", new File(["Example data"], "README.md")],
      ["model", "whisper-1"],
      ["stream", "true"],
    ]);
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toStartWith("application/json");
    expect(((await res.json()) as OpenAiError).error.code).toBe("unsupported_audio");
  });

  test("stream=true answers an engine that cannot load with its own status, before any event", async () => {
    const app = createTestApp({ modelsDir: mkdtempSync(join(tmpdir(), "svc-openai-nomodel-")) });
    app.services.settings.set("stt_engine", "whisper");
    const res = await post(app, [audio(), ["model", "whisper-1"], ["stream", "true"]]);
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toStartWith("application/json");
    expect(((await res.json()) as OpenAiError).error.code).toBe("model_unavailable");
  });

  test("stream=true: a failure after the first delta is an error event, and the log says so", async () => {
    // Two pieces of speech a second apart: the server answers the first and fails on the second.
    const pcm = goForward();
    const twice = new Float32Array(pcm.length * 2 + 16_000);
    twice.set(pcm);
    twice.set(pcm, pcm.length + 16_000);
    using upstream = fakeSpeechServer((_request, calls) =>
      calls === 1 ? "go forward" : Response.json({ error: { message: "overloaded" } }, { status: 500 }),
    );
    const app = createTestApp();
    useSpeechServer(app, upstream);
    const res = await post(app, [
      ["file", new File([encodeWav(twice)], "twice.wav", { type: "audio/wav" })],
      ["model", "whisper-1"],
      ["stream", "true"],
    ]);
    expect(res.status).toBe(200);
    const events = await streamEvents(res);
    expect(events.map((event) => event.type)).toEqual(["transcript.text.delta", "error"]);
    expect(events[1]?.error?.code).toBe("engine_server_error");
    expect(app.logs).toContainEqual(
      expect.objectContaining({ msg: "transcription stream failed", code: "engine_server_error" }),
    );
  });

  test("stream=true stores the dictation once, marked openai, with the finished text", async () => {
    const app = sphinxApp();
    const res = await post(app, [audio(), ["model", "whisper-1"], ["stream", "true"]]);
    await res.text();
    const history = (await (await app.request("/api/history")).json()) as {
      items: { finalText: string; source: string }[];
    };
    expect(history.items.map((item) => [item.finalText, item.source])).toEqual([
      ["Go forward ten meters", "openai"],
    ]);
  });

  test("stream=true records the key the client used, as a whole upload does", async () => {
    const app = createTestApp({ auth: "keys-everywhere" });
    app.services.settings.set("stt_engine", "sphinx");
    const { key } = app.access.createKey("phone", "dictate");
    const bearer = { authorization: `Bearer ${key}` };
    await (await post(app, [audio(), ["model", "whisper-1"], ["stream", "true"]], bearer)).text();
    await (await post(app, [audio(), ["model", "whisper-1"]], bearer)).text();
    const history = (await (await app.request("/api/history", { headers: bearer })).json()) as {
      items: { keyName: string | null }[];
    };
    expect(history.items.map((item) => item.keyName)).toEqual(["phone", "phone"]);
  });

  test("applies the dictionary to the text and the segments, and stores it marked openai", async () => {
    const app = sphinxApp();
    expect((await app.json("/api/dictionary", "POST", { key: "ten meters", value: "10 m" })).status).toBe(
      201,
    );
    const res = await post(app, [audio(), ["model", "whisper-1"], ["response_format", "verbose_json"]]);
    const body = (await res.json()) as { text: string; segments: { text: string }[] };
    expect(body.text).toBe("Go forward 10 m");
    expect(body.segments[0]?.text).toBe("Go forward 10 m");
    const history = (await (await app.request("/api/history")).json()) as {
      items: { finalText: string; source: string }[];
    };
    expect(history.items[0]).toMatchObject({ finalText: "Go forward 10 m", source: "openai" });
  });

  test("x-skip-post-process answers the engine's text", async () => {
    const res = await post(shared, [audio(), ["model", "whisper-1"]], { "x-skip-post-process": "true" });
    expect(((await res.json()) as { text: string }).text).toBe("go forward ten meters");
  });

  test("unknown fields are ignored", async () => {
    const res = await post(shared, [
      audio(),
      ["model", "gpt-4o-transcribe"],
      ["chunking_strategy[type]", "server_vad"],
      ["whatever", "1"],
    ]);
    expect(res.status).toBe(200);
  });

  test("keywords[] and a single languages[] candidate are read and used", async () => {
    const res = await post(shared, [
      audio(),
      ["model", "gpt-4o-transcribe"],
      ["keywords[]", "forward"],
      ["keywords[]", "meters"],
      ["languages[]", "en"],
      ["response_format", "verbose_json"],
    ]);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ language: "english", text: "Go forward ten meters" });
  });

  test("keywords[] reach the engine's prompt ahead of the vocabulary", async () => {
    const prompts: string[] = [];
    using upstream = fakeSpeechServer(async (request) => {
      prompts.push(String((await request.formData()).get("prompt") ?? ""));
      return "go forward ten meters";
    });
    const app = createTestApp();
    app.services.settings.set("stt_engine", "remote");
    app.services.settings.set("remote_stt_base_url", upstream.url);
    app.services.settings.set("remote_stt_model", "whisper-1");
    expect((await app.json("/api/vocabulary", "POST", { term: "Kubernetes" })).status).toBe(201);
    const res = await post(app, [
      audio(),
      ["model", "whisper-1"],
      ["keywords[]", "Dashwood"],
      ["keywords[]", "Norland"],
    ]);
    expect(res.status).toBe(200);
    const prompt = prompts.at(-1) ?? "";
    expect(prompt).toContain("Dashwood");
    expect(prompt).toContain("Norland");
    expect(prompt).toContain("Kubernetes");
    expect(prompt.indexOf("Dashwood")).toBeLessThan(prompt.indexOf("Kubernetes"));
    // Without keywords the prompt is the vocabulary's alone.
    await post(app, [audio(), ["model", "whisper-1"]]);
    expect(prompts.at(-1)).not.toContain("Dashwood");
  });

  test("include[]=logprobs is refused, naming the field", async () => {
    const res = await post(shared, [audio(), ["model", "whisper-1"], ["include[]", "logprobs"]]);
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as OpenAiError;
    expect(error).toMatchObject({ type: "invalid_request_error", param: "include", code: "invalid_request" });
    expect(error.message).toContain("logprobs");
  });

  test.each([
    ["large-v3", "/v1/audio/transcriptions"],
    ["no-such-model", "/v1/audio/transcriptions"],
    ["no-such-model", "/v1/audio/translations"],
  ])(
    "model %s (not installed) on %s is 404 model_not_found, not a silent transcript",
    async (model, path) => {
      const before = (await (await shared.request("/api/history")).json()) as { total: number };
      const res = await post(shared, [audio(), ["model", model]], {}, path);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({
        error: {
          message: expect.stringContaining(`"${model}"`),
          type: "invalid_request_error",
          param: "model",
          code: "model_not_found",
        },
      });
      const after = (await (await shared.request("/api/history")).json()) as { total: number };
      expect(after.total).toBe(before.total);
    },
  );

  test("a 0-byte file says it was empty, not that it was missing", async () => {
    const res = await post(shared, [
      ["file", new File([], "take1.wav", { type: "audio/wav" })],
      ["model", "whisper-1"],
    ]);
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as OpenAiError;
    expect(error).toMatchObject({ param: "file", code: "missing_audio" });
    expect(error.message).toContain('"take1.wav" is empty');
    expect(error.message).not.toContain("multipart file field");
  });

  test.each([
    ["no file", [["model", "whisper-1"]], 400, "missing_audio", "file"],
    ["no model", [audio()], 400, "invalid_request", "model"],
    [
      "a bad response_format",
      [audio(), ["model", "whisper-1"], ["response_format", "xml"]],
      400,
      "invalid_request",
      "response_format",
    ],
    [
      "a temperature over 1",
      [audio(), ["model", "whisper-1"], ["temperature", "3"]],
      400,
      "invalid_request",
      "temperature",
    ],
    [
      "a bad granularity",
      [audio(), ["model", "whisper-1"], ["timestamp_granularities[]", "char"]],
      400,
      "invalid_request",
      "timestamp_granularities",
    ],
    [
      "a file that is not audio (415 on /api)",
      [
        ["file", new File(["Example data"], "README.md")],
        ["model", "whisper-1"],
      ],
      400,
      "unsupported_audio",
      "file",
    ],
    [
      "damaged audio (422 on /api)",
      [
        ["file", new File([clip.subarray(0, 30)], "cut.wav", { type: "audio/wav" })],
        ["model", "whisper-1"],
      ],
      400,
      "invalid_audio",
      "file",
    ],
    [
      "a language the model cannot speak (422 on /api)",
      [audio(), ["model", "whisper-1"], ["language", "de"]],
      400,
      "unsupported_language",
      "language",
    ],
    [
      "a bad language",
      [audio(), ["model", "whisper-1"], ["language", "klingon!"]],
      400,
      "invalid_language",
      "language",
    ],
    [
      "a bad languages[] candidate",
      [audio(), ["model", "whisper-1"], ["languages[]", "x y"]],
      400,
      "invalid_language",
      "language",
    ],
  ] as [string, Field[], number, string, string | null][])(
    "%s: %i in OpenAI's error shape",
    async (_, fields, status, code, param) => {
      const res = await post(shared, fields);
      expect(res.status).toBe(status);
      const body = (await res.json()) as OpenAiError;
      expect(body).toEqual({
        error: { message: expect.any(String), type: "invalid_request_error", param, code },
      });
      expect(body.error.message.length).toBeGreaterThan(10);
    },
  );

  test("guard refusals are in OpenAI's shape too", async () => {
    const res = await shared.request("http://evil.example/v1/models", { headers: { host: "evil.example" } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as OpenAiError).error).toMatchObject({
      type: "permission_error",
      code: "untrusted_host",
    });
  });

  test("a body over the upload limit is 413 in OpenAI's shape", async () => {
    const app = createTestApp({ maxBodyBytes: 64 * 1024 });
    const big = new File([new Uint8Array(200 * 1024)], "big.wav", { type: "audio/wav" });
    const res = await post(app, [
      ["file", big],
      ["model", "whisper-1"],
    ]);
    expect(res.status).toBe(413);
    expect(((await res.json()) as OpenAiError).error.code).toBe("payload_too_large");
  });

  test("/api keeps svc's own envelope", async () => {
    const res = await shared.request("/api/transcribe", { method: "POST", body: new Uint8Array() });
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("missing_audio");
  });
});

describe("POST /v1/audio/translations", () => {
  test("a multilingual whisper model named by its id translates, whatever the active engine", async () => {
    const modelsDir = mkdtempSync(join(tmpdir(), "svc-models-"));
    copyFileSync(syntheticModel("micro-multilingual"), join(modelsDir, "ggml-multi.bin"));
    const app = createTestApp({ modelsDir });
    app.services.settings.set("stt_engine", "sphinx");
    app.services.settings.set("whisper_max_tokens", 16);
    app.services.settings.set("whisper_threads", 1);
    const listed = (await (await app.request("/v1/models")).json()) as { data: { id: string }[] };
    expect(listed.data.map((model) => model.id)).toContain("multi");
    const res = await post(
      app,
      [audio(), ["model", "multi"], ["response_format", "verbose_json"]],
      {},
      "/v1/audio/translations",
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { task: string; text: string };
    // Synthetic weights say nothing meaningful: the task and the model's engine are what count.
    expect(body.task).toBe("translate");
    const history = (await (await app.request("/api/history")).json()) as {
      items: { engine: string; model: string }[];
    };
    expect(history.items[0]).toMatchObject({ engine: "whisper", model: "multi" });
    rmSync(modelsDir, { recursive: true, force: true });
  });

  test("an engine that cannot translate answers 400 naming what can", async () => {
    const res = await post(shared, [audio(), ["model", "whisper-1"]], {}, "/v1/audio/translations");
    expect(res.status).toBe(400);
    const body = (await res.json()) as OpenAiError;
    expect(body.error.code).toBe("translation_unsupported");
    expect(body.error.message).toContain("multilingual model");
  });
});

describe("GET /v1/models", () => {
  test("lists OpenAI's names svc answers, in OpenAI's list shape", async () => {
    const body = (await (await createTestApp().request("/v1/models")).json()) as {
      object: string;
      data: { id: string; object: string }[];
    };
    expect(body.object).toBe("list");
    expect(body.data.map((model) => model.id)).toEqual([
      "whisper-1",
      "gpt-4o-transcribe",
      "gpt-4o-mini-transcribe",
    ]);
    expect(body.data.every((model) => model.object === "model")).toBe(true);
  });

  test("retrieves one, or 404 in OpenAI's shape", async () => {
    const app = createTestApp();
    expect(await (await app.request("/v1/models/whisper-1")).json()).toEqual({
      id: "whisper-1",
      object: "model",
      created: 0,
      owned_by: "svc",
    });
    const missing = await app.request("/v1/models/nope");
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as OpenAiError).error).toMatchObject({
      code: "model_not_found",
      param: "model",
    });
    // A path under /v1 with no route of its own answers in OpenAI's shape too, rendered once.
    const noRoute = await app.request("/v1/chat/completions", { method: "POST" });
    expect(noRoute.status).toBe(404);
    expect(((await noRoute.json()) as OpenAiError).error).toMatchObject({
      type: "invalid_request_error",
      code: "not_found",
    });
  });
});
