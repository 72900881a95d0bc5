import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import OpenAI, { type APIError, BadRequestError, NotFoundError, toFile } from "openai";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { goForward, librivoxClips } from "../helpers/sphinx-testdata.ts";
import { until } from "../helpers/until.ts";

// The official `openai` npm client, unmodified, against svc's /v1 with the sphinx engine on real
// speech. Only the base URL differs from a call to OpenAI.

let dir: string;
let wavPath: string;
let t: TestApp;
let server: Server<undefined>;
let client: OpenAI;
const wav = encodeWav(goForward());
/** Three sentences with a second's pause after each: live dictation cuts a piece at each pause. */
const threeSentences = (() => {
  const sentence = goForward();
  const pause = new Float32Array(16_000);
  const pcm = new Float32Array((sentence.length + pause.length) * 3);
  for (let i = 0; i < 3; i++) pcm.set(sentence, i * (sentence.length + pause.length));
  return encodeWav(pcm);
})();
/** The headers of every request the server received, in order. */
const received: Headers[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-openai-"));
  wavPath = join(dir, "goforward.wav");
  writeFileSync(wavPath, wav);
  t = createTestApp();
  t.services.settings.set("stt_engine", "sphinx");
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request, bun) => {
      received.push(request.headers);
      return t.app.fetch(request, bun);
    },
  });
  client = new OpenAI({
    baseURL: `http://127.0.0.1:${server.port}/v1`,
    apiKey: "sk-anything",
    maxRetries: 0,
  });
});

afterAll(() => {
  server?.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

describe("the official openai client", () => {
  test("transcribes a ReadStream (a streamed multipart body with no Content-Length)", async () => {
    const result = await client.audio.transcriptions.create({
      file: createReadStream(wavPath),
      model: "whisper-1",
    });
    expect(result.text).toBe("Go forward ten meters");
  });

  test("transcribes a File and a toFile(Buffer)", async () => {
    const file = new File([wav], "clip.wav", { type: "audio/wav" });
    expect((await client.audio.transcriptions.create({ file, model: "gpt-4o-transcribe" })).text).toBe(
      "Go forward ten meters",
    );
    const buffered = await toFile(Buffer.from(wav), "clip.wav");
    expect((await client.audio.transcriptions.create({ file: buffered, model: "whisper-1" })).text).toBe(
      "Go forward ten meters",
    );
  });

  test("every response_format comes back as the client expects it", async () => {
    const file = () => new File([wav], "clip.wav", { type: "audio/wav" });
    const text = await client.audio.transcriptions.create({
      file: file(),
      model: "whisper-1",
      response_format: "text",
    });
    expect(text).toBe("Go forward ten meters\n");
    const srt = await client.audio.transcriptions.create({
      file: file(),
      model: "whisper-1",
      response_format: "srt",
    });
    expect(srt).toStartWith("1\n00:00:00,");
    const vtt = await client.audio.transcriptions.create({
      file: file(),
      model: "whisper-1",
      response_format: "vtt",
    });
    expect(vtt).toStartWith("WEBVTT\n\n00:00:00.");
    const verbose = await client.audio.transcriptions.create({
      file: file(),
      model: "whisper-1",
      response_format: "verbose_json",
      timestamp_granularities: ["word", "segment"],
    });
    // OpenAI's published CreateTranscriptionResponseVerboseJson: required fields and their types.
    expect(verbose).toMatchObject({
      language: "english",
      duration: expect.any(Number),
      text: "Go forward ten meters",
    });
    for (const segment of verbose.segments ?? []) {
      expect(segment).toEqual({
        id: expect.any(Number),
        seek: expect.any(Number),
        start: expect.any(Number),
        end: expect.any(Number),
        text: expect.any(String),
        tokens: expect.any(Array),
        temperature: expect.any(Number),
        avg_logprob: expect.any(Number),
        compression_ratio: expect.any(Number),
        no_speech_prob: expect.any(Number),
      });
    }
    // Timed parts read like the text: cleaned, on the engine's timings.
    expect(verbose.words?.map((word) => word.word)).toEqual(["Go", "forward", "ten", "meters"]);
    expect(verbose.segments?.map((segment) => segment.text)).toEqual(["Go forward ten meters"]);
    expect(verbose.usage).toEqual({ type: "duration", seconds: 3 });
  });

  test("stream: true sends a delta per piece of speech as it is recognised, then the finished text", async () => {
    const stream = await client.audio.transcriptions.create({
      file: new File([threeSentences], "three.wav", { type: "audio/wav" }),
      model: "gpt-4o-mini-transcribe",
      stream: true,
    });
    const deltas: { delta: string; at: number }[] = [];
    let done: { text: string; at: number } | undefined;
    for await (const event of stream) {
      if (event.type === "transcript.text.delta") deltas.push({ delta: event.delta, at: performance.now() });
      if (event.type === "transcript.text.done") done = { text: event.text, at: performance.now() };
    }
    // One delta per sentence, each the engine's text for that piece, before the final.
    expect(deltas.map((event) => event.delta)).toEqual([
      "go forward ten meters",
      " go forward ten meters",
      " go forward ten meters",
    ]);
    // They arrive as the engine finishes each piece, not all at once with the final.
    const first = deltas[0]?.at ?? 0;
    const last = deltas.at(-1)?.at ?? 0;
    expect(last - first).toBeGreaterThan(20);
    expect(done?.text).toBe("Go forward ten meters go forward ten meters go forward ten meters");
    expect(done?.at ?? 0).toBeGreaterThanOrEqual(last);
  }, 60_000);

  test("a client that stops reading the stream cancels its dictation: nothing is recorded", async () => {
    const total = async () => ((await (await t.request("/api/history")).json()) as { total: number }).total;
    const before = await total();
    const stream = await client.audio.transcriptions.create({
      file: new File([threeSentences], "three.wav", { type: "audio/wav" }),
      model: "whisper-1",
      stream: true,
    });
    let first = "";
    for await (const event of stream) {
      if (event.type === "transcript.text.delta") {
        first = event.delta;
        break; // the SDK aborts the request
      }
    }
    expect(first).toBe("go forward ten meters");
    await until(() => t.dictation.transcriber.isIdle(), Boolean, { what: "the cancelled pieces to leave" });
    expect(await total()).toBe(before);
  }, 60_000);

  test("an unknown model raises NotFoundError for transcriptions, translations and retrieve alike", async () => {
    for (const model of ["large-v3", "no-such-model"]) {
      const transcribed = await client.audio.transcriptions
        .create({ file: new File([wav], "clip.wav"), model })
        .catch((caught: unknown) => caught);
      expect(transcribed).toBeInstanceOf(NotFoundError);
      expect(transcribed).toMatchObject({ code: "model_not_found", param: "model" });
      const translated = await client.audio.translations
        .create({ file: new File([wav], "clip.wav"), model })
        .catch((caught: unknown) => caught);
      expect(translated).toBeInstanceOf(NotFoundError);
      const retrieved = await client.models.retrieve(model).catch((caught: unknown) => caught);
      expect(retrieved).toBeInstanceOf(NotFoundError);
      expect((retrieved as APIError).code).toBe("model_not_found");
    }
  });

  test("keywords and languages are taken; include logprobs is refused as BadRequestError", async () => {
    const result = await client.audio.transcriptions.create({
      file: new File([wav], "clip.wav", { type: "audio/wav" }),
      model: "gpt-4o-transcribe",
      keywords: ["meters"],
      languages: ["en"],
    } as Parameters<typeof client.audio.transcriptions.create>[0]);
    expect((result as { text: string }).text).toBe("Go forward ten meters");
    const refused = await client.audio.transcriptions
      .create({ file: new File([wav], "clip.wav"), model: "gpt-4o-transcribe", include: ["logprobs"] })
      .catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(BadRequestError);
    expect(refused).toMatchObject({ param: "include", code: "invalid_request" });
  });

  test("translations and models", async () => {
    const translation = client.audio.translations.create({
      file: createReadStream(wavPath),
      model: "whisper-1",
    });
    const error = await translation.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as APIError).code).toBe("translation_unsupported");
    const models = [];
    for await (const model of client.models.list()) models.push(model.id);
    expect(models).toEqual(["whisper-1", "gpt-4o-transcribe", "gpt-4o-mini-transcribe"]);
    expect(await client.models.retrieve("whisper-1")).toMatchObject({ id: "whisper-1", object: "model" });
    expect(await client.models.retrieve("nope").catch((caught: unknown) => caught)).toBeInstanceOf(
      NotFoundError,
    );
  });

  test("errors arrive as the client's typed errors with svc's message", async () => {
    const notAudio = await client.audio.transcriptions
      .create({ file: await toFile(Buffer.from("Example data"), "README.md"), model: "gpt-4o-transcribe" })
      .catch((caught: unknown) => caught);
    // OpenAI answers audio it cannot use 400: the client raises BadRequestError, svc's code kept.
    expect(notAudio).toBeInstanceOf(BadRequestError);
    expect(notAudio).toMatchObject({ status: 400, code: "unsupported_audio", param: "file" });
    const damaged = await client.audio.transcriptions
      .create({ file: new File([wav.subarray(0, 30)], "cut.wav", { type: "audio/wav" }), model: "whisper-1" })
      .catch((caught: unknown) => caught);
    expect(damaged).toBeInstanceOf(BadRequestError);
    expect(damaged).toMatchObject({ code: "invalid_audio", param: "file" });
    const empty = await client.audio.transcriptions
      .create({ file: new File([], "empty.wav", { type: "audio/wav" }), model: "whisper-1" })
      .catch((caught: unknown) => caught);
    expect(empty).toBeInstanceOf(BadRequestError);
    expect((empty as APIError).message).toContain('"empty.wav" is empty');
    const language = await client.audio.transcriptions
      .create({ file: new File([wav], "clip.wav"), model: "whisper-1", language: "not a language" })
      .catch((caught: unknown) => caught);
    expect(language).toBeInstanceOf(BadRequestError);
    expect(language).toMatchObject({ code: "invalid_language", param: "language" });
    const noModel = await client.audio.transcriptions
      .create({ file: new File([wav], "clip.wav"), model: "" })
      .catch((caught: unknown) => caught);
    expect(noModel).toBeInstanceOf(BadRequestError);
    expect((noModel as APIError).param).toBe("model");
  });

  test("a 503 busy is retried by the client after Retry-After", async () => {
    t.services.settings.set("transcribe_queue_size", 1);
    const long = librivoxClips().sort((a, b) => b.pcm.length - a.pcm.length)[0];
    if (!long) throw new Error("no LibriVox clip");
    const blocker = () =>
      t.request("/api/transcribe", {
        method: "POST",
        body: encodeWav(long.pcm),
        headers: { "content-type": "audio/wav" },
      });
    // One running, one queued: the next request is refused until the queue has room again.
    const blockers = [blocker(), blocker()];
    await Bun.sleep(100);
    const retrying = new OpenAI({
      baseURL: `http://127.0.0.1:${server.port}/v1`,
      apiKey: "x",
      maxRetries: 3,
    });
    const before = t.logs.length;
    const result = await retrying.audio.transcriptions.create({
      file: new File([wav], "clip.wav"),
      model: "whisper-1",
    });
    expect(result.text).toBe("Go forward ten meters");
    const statuses = t.logs
      .slice(before)
      .filter((line) => line.path === "/v1/audio/transcriptions")
      .map((line) => line.status);
    expect(statuses[0]).toBe(503);
    expect(statuses.at(-1)).toBe(200);
    await Promise.all(blockers);
    t.services.settings.set("transcribe_queue_size", 16);
  }, 60_000);
});
