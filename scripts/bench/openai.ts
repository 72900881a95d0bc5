// OpenAI-compatible API benchmark: the same 5 s clip through POST /v1/audio/transcriptions (the
// multipart form OpenAI's clients send; json, and verbose_json with word timings) and through
// POST /api/transcribe (the raw WAV body), rounds interleaved against one running svc, synthetic
// base.en-shaped model on 2 threads. Target: /v1 within 2 % of /api.
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { speech, tokensFor } from "./transcribe.ts";
import { fmt, median, spread, startWhisperSvc, table } from "./util.ts";

const rounds = Number(process.env.BENCH_ROUNDS ?? 11);

export async function run(): Promise<void> {
  const svc = await startWhisperSvc("openai");
  const { server, put } = svc;
  try {
    await put("whisper_max_tokens", tokensFor(5));
    const wav = encodeWav(speech(5));
    const timed = async (request: () => Promise<Response>) => {
      const started = performance.now();
      const res = await request();
      if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
      await res.arrayBuffer();
      return performance.now() - started;
    };
    const api = () =>
      fetch(`${server.url}/api/transcribe`, {
        method: "POST",
        body: wav,
        headers: { "content-type": "audio/wav" },
      });
    const v1 = (fields: Record<string, string>) => () => {
      const form = new FormData();
      form.append("file", new File([wav], "clip.wav", { type: "audio/wav" }));
      form.append("model", "whisper-1");
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      return fetch(`${server.url}/v1/audio/transcriptions`, {
        method: "POST",
        body: form,
        headers: { authorization: "Bearer x" },
      });
    };
    const kinds = {
      "POST /api/transcribe (raw WAV)": api,
      "POST /v1/audio/transcriptions (json)": v1({}),
      "POST /v1/audio/transcriptions (verbose_json, words)": v1({
        response_format: "verbose_json",
        "timestamp_granularities[]": "word",
      }),
    };
    await timed(api); // loads the model
    const samples = Object.fromEntries(Object.keys(kinds).map((name) => [name, [] as number[]]));
    for (let round = 0; round < rounds; round++) {
      for (const [name, request] of Object.entries(kinds)) samples[name]?.push(await timed(request));
    }
    const base = median(samples["POST /api/transcribe (raw WAV)"] ?? []);
    console.log(`\nthe same 5 s clip, ms over ${rounds} interleaved rounds: median (p10–p90)`);
    table([
      ["request", "ms", "÷ /api/transcribe"],
      ...Object.entries(samples).map(([name, values]) => [
        name,
        spread(values),
        fmt(median(values) / base, 3),
      ]),
    ]);
    console.log("target: /v1 json within 2 % of /api/transcribe (ratio ≤ 1.02)");
  } finally {
    await svc.stop();
  }
}
