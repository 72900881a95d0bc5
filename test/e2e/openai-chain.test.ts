import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { goForward } from "../helpers/sphinx-testdata.ts";

// svc's OpenAI-compatible API as other programs meet it: OpenAI's documented curl commands with
// only the base URL changed, and a second svc whose remote engine is this one (scale-out).

let dir: string;
let wavPath: string;
let engineSvc: TestApp;
let server: Server<undefined>;
let base: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-openai-chain-"));
  wavPath = join(dir, "audio.wav");
  writeFileSync(wavPath, encodeWav(goForward()));
  engineSvc = createTestApp();
  engineSvc.services.settings.set("stt_engine", "sphinx");
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request, bun) => engineSvc.app.fetch(request, bun),
  });
  base = `http://127.0.0.1:${server.port}/v1`;
});

afterAll(() => {
  server?.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

/** Runs curl as a separate process (the server answers from this one, so never block on it). */
async function curl(...args: string[]): Promise<string> {
  const proc = Bun.spawn(["curl", "-sS", "--fail-with-body", ...args], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`curl failed (${code}): ${out} ${err}`);
  return out;
}

/** OpenAI's documented transcription command with these form fields, at svc's base URL. */
const transcriptionCurl = (...fields: string[]) =>
  curl(
    `${base}/audio/transcriptions`,
    "-H",
    "Authorization: Bearer $OPENAI_API_KEY",
    "-H",
    "Content-Type: multipart/form-data",
    "-F",
    `file=@${wavPath}`,
    ...fields.flatMap((field) => ["-F", field]),
  );

describe("OpenAI's documented curl commands, base URL changed", () => {
  test("transcription (with its explicit multipart Content-Type header)", async () => {
    const out = await transcriptionCurl("model=gpt-4o-transcribe");
    expect(JSON.parse(out)).toMatchObject({ text: "Go forward ten meters" });
  });

  test("word timestamps", async () => {
    const out = await transcriptionCurl(
      "timestamp_granularities[]=word",
      "model=whisper-1",
      "response_format=verbose_json",
    );
    const body = JSON.parse(out) as { words: { word: string }[] };
    expect(body.words.map((word) => word.word)).toEqual(["Go", "forward", "ten", "meters"]);
  });

  test("streaming", async () => {
    const out = await transcriptionCurl("model=gpt-4o-mini-transcribe", "stream=true");
    expect(out).toContain('"type":"transcript.text.done","text":"Go forward ten meters"');
  });

  test("models", async () => {
    const out = await curl(`${base}/models`, "-H", "Authorization: Bearer $OPENAI_API_KEY");
    expect((JSON.parse(out) as { object: string }).object).toBe("list");
  });
});

describe("one svc's remote engine pointed at another svc's /v1", () => {
  test("transcribes through the chain; the text pipeline runs once, in the front svc", async () => {
    const front = createTestApp();
    front.services.settings.set("stt_engine", "remote");
    front.services.settings.set("remote_stt_base_url", base);
    front.services.settings.set("remote_stt_model", "whisper-1");
    expect((await front.json("/api/dictionary", "POST", { key: "meters", value: "metres" })).status).toBe(
      201,
    );
    const before = engineSvc.logs.length;
    const res = await front.request("/api/transcribe", {
      method: "POST",
      body: encodeWav(goForward()),
      headers: { "content-type": "audio/wav" },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { text: string; raw: string; engine: string };
    // The engine svc answered its engine's raw text; the front svc cleaned it and used its dictionary.
    expect(body).toMatchObject({
      engine: "remote",
      raw: "go forward ten meters",
      text: "Go forward ten metres",
    });
    const calls = engineSvc.logs.slice(before).filter((line) => line.path === "/v1/audio/transcriptions");
    expect(calls.map((line) => line.status)).toEqual([200]);
  });

  test("word timings pass through the chain to the front svc's /v1", async () => {
    const front = createTestApp();
    front.services.settings.set("stt_engine", "remote");
    front.services.settings.set("remote_stt_base_url", base);
    front.services.settings.set("remote_stt_model", "whisper-1");
    const form = new FormData();
    form.append("file", new File([encodeWav(goForward())], "a.wav", { type: "audio/wav" }));
    form.append("model", "whisper-1");
    form.append("response_format", "verbose_json");
    form.append("timestamp_granularities[]", "word");
    const res = await front.request("/v1/audio/transcriptions", { method: "POST", body: form });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { words: { word: string; start: number }[] };
    expect(body.words.map((word) => word.word)).toEqual(["Go", "forward", "ten", "meters"]);
    expect(body.words[0]?.start).toBeGreaterThan(0.3);
  });
});
