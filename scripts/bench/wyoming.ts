// Wyoming benchmark: a 5 s spoken command sent as Home Assistant sends it (transcribe, audio-start,
// 1024-byte audio-chunks of 16 kHz 16-bit mono at real-time pace, audio-stop), timed from
// audio-stop to the transcript, beside POST /api/transcribe of the same clip sent whole when it
// ends. The command is two stretches of speech with a pause between them, then the silence after
// which Home Assistant's own detector ends it (0.7 s by default, 0.25 s at its "aggressive"
// setting). One running svc, synthetic base.en-shaped model on 2 threads; decoding capped at
// about 3.5 tokens per audio second, per piece for the live path and per clip for the upload. The
// synthetic model's text is noise that svc's filters drop, so no transcript-chunk comes back.
// `--contended` measures the same rounds beside a busy loop on every core.
import { loadavg } from "node:os";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { concat } from "../../src/dictation/audio/resample.ts";
import { freePort } from "../../test/helpers/ports.ts";
import { connectWyoming, pcm16, streamChunks } from "../../test/helpers/wyoming.ts";
import { speech, tokensFor } from "./transcribe.ts";
import { busyLoops, contended, fmt, median, spread, startWhisperSvc, table } from "./util.ts";

const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const rate = 16_000;
const format = { rate, width: 2, channels: 1 };
const silence = (seconds: number) => new Float32Array(Math.round(seconds * rate));

/** Speech, a pause, more speech, then the trailing silence that ends the command: 5 s in all. */
function command(tailSeconds: number): Float32Array {
  return concat([speech(2.0), silence(0.5), speech(2.5 - tailSeconds), silence(tailSeconds)]);
}

/** A port nothing listens on now, for the Wyoming listener. */

/** Milliseconds from audio-stop to the transcript. */
async function wyomingRound(port: number, bytes: Uint8Array): Promise<number> {
  const client = await connectWyoming(port);
  client.send("transcribe", { language: "en" });
  client.send("audio-start", format);
  await streamChunks(client, bytes, format, 1024, rate * 2);
  const stopped = performance.now();
  client.send("audio-stop");
  const transcript = await client.next("transcript");
  const stopToTranscriptMs = performance.now() - stopped;
  if (typeof transcript.data.text !== "string") throw new Error("no transcript text");
  client.close();
  return stopToTranscriptMs;
}

export async function run(): Promise<void> {
  const port = freePort();
  const svc = await startWhisperSvc("wyoming", { SVC_WYOMING_PORT: String(port) });
  const { put } = svc;
  const load = contended ? busyLoops() : null;
  try {
    const post = (wav: Uint8Array<ArrayBuffer>) => svc.post(wav, { "x-app-context": "Wyoming" });
    const useCap = (tokens: number) => svc.useCap(tokens, encodeWav(speech(1)));
    await put("audio_ctx_scaling", true);

    const rows: (string | number)[][] = [
      ["trailing silence", "audio-stop→transcript ms", "upload POST ms", "upload ÷ wyoming"],
    ];
    const verdicts: string[] = [];
    for (const tail of [0.7, 0.25]) {
      const pcm = command(tail);
      const bytes = pcm16(pcm);
      // Each piece is at most 2.5 s of speech, capped as such a dictation would be.
      await useCap(tokensFor(2.5));
      // The first round of a clip is slower on either path (lengths the engine has not met yet):
      // each path hears the clip once untimed.
      await wyomingRound(port, bytes);
      const live: number[] = [];
      for (let round = 0; round < rounds; round++) live.push(await wyomingRound(port, bytes));
      await useCap(tokensFor(pcm.length / rate));
      const wav = encodeWav(pcm);
      await post(wav);
      const upload: number[] = [];
      for (let round = 0; round < rounds; round++) upload.push(await post(wav));
      const stopMs = median(live);
      const ratio = median(upload) / stopMs;
      rows.push([
        `${tail} s${tail === 0.7 ? " (HA default)" : " (HA aggressive)"}`,
        spread(live, 0),
        spread(upload, 0),
        `${fmt(ratio, 1)}×`,
      ]);
      verdicts.push(
        contended
          ? `${tail} s tail, contended: upload ÷ wyoming ${fmt(ratio, 1)}× (target ≥ 1×: never slower than the upload) ${ratio >= 1 ? "ok" : "MISSED"}`
          : `${tail} s tail: audio-stop→transcript ${fmt(stopMs, 0)} ms (target ≤ 250) ${stopMs <= 250 ? "ok" : "MISSED"}; ` +
              `upload ÷ wyoming ${fmt(ratio, 1)}× (target ≥ 1.5×) ${ratio >= 1.5 ? "ok" : "MISSED"}`,
      );
    }
    console.log(
      `\nWyoming: a 5 s command (${fmt(2.0, 1)} s speech, 0.5 s pause, speech, trailing silence) in 1024-byte ` +
        `audio-chunks at real-time pace, beside POST /api/transcribe of the same clip; median (p10–p90) of ` +
        `${rounds} rounds, 2 threads${load ? `, CONTENDED: ${load.label}` : ""}; load average ${loadavg()
          .map((n) => n.toFixed(2))
          .join(" ")}`,
    );
    table(rows);
    for (const line of verdicts) console.log(line);
  } finally {
    await load?.stop();
    await svc.stop();
  }
}

if (import.meta.main) await run();
