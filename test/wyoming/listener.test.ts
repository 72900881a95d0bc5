import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resample } from "../../src/dictation/audio/resample.ts";
import { goForward } from "../helpers/sphinx-testdata.ts";
import { syntheticModel } from "../helpers/synthetic-model.ts";
import { until } from "../helpers/until.ts";
import {
  connectWyoming,
  pcm16,
  type serveWyoming,
  streamChunks,
  type WyomingClient,
  type WyomingTestServer,
  wyomingPerTest,
} from "../helpers/wyoming.ts";

// svc's Wyoming listener on a real TCP port, driven by a client written from the protocol, with
// the sphinx engine on the pocketsphinx goforward clip ("go forward ten meters", 16 kHz mono).

const serve = wyomingPerTest();

type WrapTranscriber = NonNullable<NonNullable<Parameters<typeof serveWyoming>[0]>["wrap"]>;
type PieceInput = Parameters<ReturnType<WrapTranscriber>["recognisePiece"]>[0];

/** A `wrap` that shows `see` what each piece asks of the engine, then asks it. */
const seeingPieces =
  (see: (input: PieceInput) => unknown): WrapTranscriber =>
  (transcriber) => ({
    ...transcriber,
    recognisePiece: (input) => {
      see(input);
      return transcriber.recognisePiece(input);
    },
  });

const ha = { rate: 16_000, width: 2, channels: 1 };
/** What Home Assistant's Assist sends: 16 kHz 16-bit mono, then a second of the silence that ends it. */
const spoken = () => pcm16(Float32Array.from([...goForward(), ...new Float32Array(16_000)]));

const fromPcm16 = (bytes: Uint8Array) =>
  Float32Array.from(new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2), (s) => s / 32768);
const pcm32 = (pcm: Float32Array) =>
  new Uint8Array(
    Int32Array.from(pcm, (s) => Math.round(Math.max(-1, Math.min(1 - 2 ** -31, s)) * 2 ** 31)).buffer,
  );

async function history(server: WyomingTestServer) {
  const res = await server.app.request("/api/history");
  return ((await res.json()) as { items: Record<string, unknown>[] }).items;
}

/** transcribe, audio-start, the audio in 1024-byte chunks, audio-stop: Home Assistant's stt.py. */
async function transcribe(
  client: WyomingClient,
  bytes: Uint8Array,
  format = ha,
  options: { bytesPerSecond?: number; language?: string } = {},
) {
  client.send("transcribe", { language: options.language ?? "en" });
  client.send("audio-start", { ...format, timestamp: null });
  await streamChunks(client, bytes, format, 1024, options.bytesPerSecond);
  client.send("audio-stop", { timestamp: null });
  return client.next("transcript");
}

async function expectError(client: WyomingClient, code: string) {
  const error = await client.next("error");
  expect(error.data.code).toBe(code);
  expect(typeof error.data.text).toBe("string");
  await client.closed;
}

describe("Wyoming listener: Home Assistant's sequence", () => {
  test("describe answers info: an asr program named svc that streams, with its model's languages", async () => {
    const server = serve();
    const client = await connectWyoming(server.port);
    client.send("describe");
    const info = await client.next("info");
    expect(info.header).toMatchObject({ type: "info", version: "1.9.0" });
    expect(typeof info.header.data_length).toBe("number");
    const asr = (info.data.asr as Record<string, unknown>[])[0];
    expect(asr).toMatchObject({
      name: "svc",
      installed: true,
      version: "0.0.0-test",
      supports_transcript_streaming: true,
      attribution: { name: "svc", url: "http://127.0.0.1:4649" },
    });
    expect(typeof asr?.description).toBe("string");
    expect(asr?.models).toEqual([
      {
        name: "en-us",
        attribution: { name: "CMU Sphinx", url: "https://cmusphinx.github.io" },
        installed: true,
        description: "PocketSphinx's US English model (stt_engine sphinx).",
        version: null,
        languages: ["en"],
      },
    ]);
    for (const list of ["tts", "handle", "intent", "wake", "mic", "snd"]) expect(info.data[list]).toEqual([]);
    // The connection stays open for more.
    client.send("ping", { text: "hi" });
    expect((await client.next("pong")).data).toEqual({ text: "hi" });
    client.close();
  });

  test("1024-byte chunks at real-time pace: chunks while speaking, then transcript and stop", async () => {
    const server = serve();
    await server.app.dictation.warmUp();
    const client = await connectWyoming(server.port);
    const audio = spoken();
    client.send("transcribe", { language: "en" });
    client.send("audio-start", { ...ha, timestamp: null });
    await streamChunks(client, audio, ha, 1024, 32_000);
    // The pause after the command closed its piece: its text came while audio was still arriving.
    const beforeStop = client.events.map((event) => event.type);
    client.send("audio-stop", { timestamp: null });
    await client.next("transcript-stop");

    expect(beforeStop).toEqual(["transcript-start", "transcript-chunk"]);
    const types = client.events.map((event) => event.type);
    expect(types[0]).toBe("transcript-start");
    expect(types.slice(-2)).toEqual(["transcript", "transcript-stop"]);
    expect(types.filter((type) => type !== "transcript-chunk")).toEqual([
      "transcript-start",
      "transcript",
      "transcript-stop",
    ]);
    const transcript = client.events.find((event) => event.type === "transcript");
    // The Voice assistant format: the command as said, no capital, no trailing period.
    expect(transcript?.data).toEqual({ text: "go forward ten meters", language: "en" });
    const chunks = client.events.filter((event) => event.type === "transcript-chunk");
    expect(chunks.map((chunk) => chunk.data.text).join("")).toBe("go forward ten meters");
    expect(client.events[0]?.data).toEqual({ language: "en" });

    const [row] = await history(server);
    expect(row).toMatchObject({
      source: "wyoming",
      rawText: "go forward ten meters",
      finalText: "go forward ten meters",
      appContext: { app: "Wyoming" },
      formatLabel: "Voice assistant",
      engine: "sphinx",
    });
    expect(row?.audioDurationMs as number).toBeCloseTo(audio.length / 32, -2);
    client.close();
    // 3.8 s of audio at real-time pace after loading sphinx and the detector: past the 5 s default.
  }, 20_000);

  test("44.1 kHz stereo 16-bit is mixed down and resampled to the same text", async () => {
    const server = serve();
    const mono = resample(goForward(), 16_000, 44_100);
    const stereo = new Float32Array(mono.length * 2);
    mono.forEach((sample, i) => {
      stereo[2 * i] = sample;
      stereo[2 * i + 1] = sample;
    });
    const client = await connectWyoming(server.port);
    const transcript = await transcribe(client, pcm16(stereo), { rate: 44_100, width: 2, channels: 2 });
    expect(transcript.data.text).toBe("go forward ten meters");
  });

  test("8 kHz mono (telephone quality) reaches the engine as that audio converted to 16 kHz", async () => {
    // PocketSphinx's en-us model is wideband and adapts to the channel as it goes: on band-limited
    // audio its text depends on what it heard before ("forward", "the or word and meters" from an
    // 8 kHz upload), so the check is on what svc hands it, piece by piece.
    const pieces: Float32Array[] = [];
    const server = serve(
      {},
      {
        wrap: seeingPieces((input) => pieces.push(input.pcm)),
      },
    );
    const narrow = pcm16(resample(goForward(), 16_000, 8_000));
    // The same samples converted here and sent at 16 kHz as 32-bit integers, so nothing is lost.
    const widened = resample(fromPcm16(narrow), 8_000, 16_000);
    const direct = await connectWyoming(server.port);
    const atEight = await transcribe(direct, narrow, { rate: 8_000, width: 2, channels: 1 });
    const heard = pieces.splice(0);
    const converted = await connectWyoming(server.port);
    await transcribe(converted, pcm32(widened), { rate: 16_000, width: 4, channels: 1 });
    expect(atEight.data.text).not.toBe("");
    expect(heard.length).toBeGreaterThan(0);
    expect(heard.map((piece) => piece.length)).toEqual(pieces.map((piece) => piece.length));
    heard.forEach((piece, i) => {
      const other = pieces[i] ?? new Float32Array(0);
      expect(
        piece.reduce((max, sample, j) => Math.max(max, Math.abs(sample - (other[j] ?? 0))), 0),
      ).toBeLessThan(1e-6);
    });
    const rows = await history(server);
    expect(rows.map((row) => Math.round((row.audioDurationMs as number) / 10))).toEqual([279, 279]);
  });

  test("audio-chunk without audio-start starts from the chunk's own format, as Python servers allow", async () => {
    const client = await connectWyoming(serve().port);
    await streamChunks(client, spoken(), ha, 2048);
    client.send("audio-stop");
    expect((await client.next("transcript")).data.text).toBe("go forward ten meters");
  });

  test("unknown events are ignored, before and amid the audio", async () => {
    const client = await connectWyoming(serve().port);
    client.send("run-satellite");
    client.send("transcribe", { language: "en", context: { conversation: 1 }, vad_sensitivity: "default" });
    client.send("audio-start", ha);
    const audio = spoken();
    client.send("audio-chunk", ha, audio.subarray(0, 32_000));
    client.send("x-svc-unknown", { any: ["thing"] }, new Uint8Array(10));
    client.send("audio-chunk", ha, audio.subarray(32_000));
    client.send("audio-stop");
    expect((await client.next("transcript")).data.text).toBe("go forward ten meters");
    expect(client.events.map((event) => event.type)).not.toContain("error");
  });

  test("audio-stop with no audio answers an empty transcript, and the connection takes another", async () => {
    const client = await connectWyoming(serve().port);
    client.send("audio-stop");
    expect((await client.next("transcript")).data).toEqual({ text: "" });
    await client.next("transcript-stop");
    client.events.length = 0;
    expect((await transcribe(client, spoken())).data.text).toBe("go forward ten meters");
  });

  test("start and stop with nothing said answer empty transcripts and record nothing", async () => {
    const server = serve();
    const client = await connectWyoming(server.port);
    for (let round = 0; round < 20; round++) {
      client.send("audio-start", ha);
      if (round % 2 === 0) client.send("audio-chunk", ha, new Uint8Array(3200));
      client.send("audio-stop");
    }
    const stops = () => client.events.filter((event) => event.type === "transcript-stop").length;
    for (let wait = 0; wait < 200 && stops() < 20; wait++) await Bun.sleep(25);
    expect(
      client.events.filter((event) => event.type === "transcript").map((event) => event.data.text),
    ).toEqual(Array(20).fill(""));
    expect(await history(server)).toEqual([]);
    // What was said is still recorded.
    client.events.length = 0;
    expect((await transcribe(client, spoken())).data.text).toBe("go forward ten meters");
    expect(await history(server)).toHaveLength(1);
  });

  test("a client that half-closes after audio-stop still gets its transcript, then the end", async () => {
    const client = await connectWyoming(serve().port);
    client.send("transcribe", { language: "en" });
    client.send("audio-start", ha);
    await streamChunks(client, spoken(), ha, 1024);
    client.send("audio-stop");
    client.halfClose();
    expect((await client.next("transcript")).data.text).toBe("go forward ten meters");
    await client.next("transcript-stop");
    await client.closed;
  });

  test("with history paused, the transcript is answered and nothing is recorded", async () => {
    const server = serve({ history_paused: true });
    const client = await connectWyoming(server.port);
    expect((await transcribe(client, spoken())).data.text).toBe("go forward ten meters");
    expect(await history(server)).toEqual([]);
  });

  test("two clients at once each get their own transcript", async () => {
    const server = serve();
    const [first, second] = await Promise.all([connectWyoming(server.port), connectWyoming(server.port)]);
    if (!first || !second) throw new Error("no clients");
    const quiet = pcm16(new Float32Array(8000));
    const [a, b] = await Promise.all([
      transcribe(first, spoken(), ha, { bytesPerSecond: 128_000 }),
      transcribe(second, Buffer.concat([quiet, spoken()]), ha, { bytesPerSecond: 128_000 }),
    ]);
    expect([a.data.text, b.data.text]).toEqual(["go forward ten meters", "go forward ten meters"]);
    expect((await history(server)).map((row) => row.source)).toEqual(["wyoming", "wyoming"]);
  });

  test("a language the engine cannot transcribe: an error event, then audio-stop's empty transcript, then the end", async () => {
    const client = await connectWyoming(serve().port);
    client.send("transcribe", { language: "de" });
    client.send("audio-start", ha);
    await streamChunks(client, spoken(), ha, 4096);
    expect(client.isClosed()).toBe(false);
    client.send("audio-stop");
    await expectError(client, "unsupported_language");
    const types = client.events.map((event) => event.type);
    expect(types.slice(types.indexOf("error"))).toEqual([
      "error",
      "transcript-start",
      "transcript",
      "transcript-stop",
    ]);
    expect(client.events.find((event) => event.type === "transcript")?.data.text).toBe("");
  });

  test("after a failure, audio-stop is waited for as long as a command may last, then the end", async () => {
    const client = await connectWyoming(serve({ wyoming_max_utterance_seconds: 5 }).port);
    client.send("transcribe", { language: "de" });
    client.send("audio-start", ha);
    // The command fails at its first piece, within the 1 s its audio takes at 4× real time.
    const startedAt = performance.now();
    await streamChunks(client, spoken(), ha, 4096, 128_000);
    expect((await client.next("error")).data.code).toBe("unsupported_language");
    expect(client.isClosed()).toBe(false);
    // No audio-stop comes: the connection is kept for the rest of the command (5 s), then closed.
    await until(
      async () => client.isClosed(),
      (closed) => closed,
      { timeoutMs: 15_000 },
    );
    const waited = performance.now() - startedAt;
    expect(waited).toBeGreaterThan(4_000);
    expect(waited).toBeLessThan(10_000);
  }, 30_000);

  test("a language the active model does not speak goes to an installed model that does", async () => {
    // Home Assistant sends only the pipeline's language, chosen from the union describe offers.
    const modelsDir = mkdtempSync(join(tmpdir(), "svc-wyoming-models-"));
    copyFileSync(syntheticModel("micro"), join(modelsDir, "ggml-base.en.bin"));
    copyFileSync(syntheticModel("micro-multilingual"), join(modelsDir, "ggml-my-model.bin"));
    const asked: (string | undefined)[] = [];
    const server = serve(
      { stt_engine: "whisper", stt_model: "base.en" },
      {
        modelsDir,
        wrap: seeingPieces((input) => asked.push(input.request.model)),
      },
    );
    const client = await connectWyoming(server.port);
    await transcribe(client, spoken(), ha, { bytesPerSecond: 128_000, language: "de-DE" });
    const german = asked.splice(0);
    await transcribe(client, spoken(), ha, { bytesPerSecond: 128_000, language: "en" });
    rmSync(modelsDir, { recursive: true, force: true });
    expect(german.length).toBeGreaterThan(0);
    expect(new Set(german)).toEqual(new Set(["my-model"]));
    // English is the active model's own: stt_model stays in charge.
    expect(asked.length).toBeGreaterThan(0);
    expect(new Set(asked)).toEqual(new Set([undefined]));
  });
});

describe("Wyoming listener: malformed input closes that connection only", () => {
  test.each([
    ["a line that is not JSON", "hello wyoming\n", "invalid_json"],
    ["a header without a type", '{"data":{"rate":16000}}\n', "invalid_request"],
    ["a huge data_length", '{"type":"transcribe","data_length":99999999999}\n', "payload_too_large"],
    ["a negative payload_length", '{"type":"audio-chunk","payload_length":-5}\n', "invalid_request"],
    ["a fractional data_length", '{"type":"transcribe","data_length":2.5}\n', "invalid_request"],
    ["data bytes that are not JSON", '{"type":"transcribe","data_length":5}\nhello', "invalid_json"],
    [
      "an audio format out of range",
      '{"type":"audio-start","data":{"rate":16000,"width":5,"channels":1}}\n',
      "invalid_request",
    ],
  ])(
    "%s: an error event, the close, a log line; another client is served meanwhile",
    async (_name, bytes, code) => {
      const server = serve();
      const other = await connectWyoming(server.port);
      other.send("transcribe", { language: "en" });
      other.send("audio-start", ha);
      const client = await connectWyoming(server.port);
      client.raw(bytes);
      await expectError(client, code);
      const logged = server.app.logs.find((line) => line.msg === "wyoming connection closed");
      expect(logged).toMatchObject({ level: "warn", code });
      await streamChunks(other, spoken(), ha, 1024);
      other.send("audio-stop");
      expect((await other.next("transcript")).data.text).toBe("go forward ten meters");
      expect(server.server.connections).toBe(1);
    },
  );

  test("a second audio-start while audio is open is refused", async () => {
    const client = await connectWyoming(serve().port);
    client.send("audio-start", ha);
    client.send("audio-start", ha);
    await expectError(client, "invalid_request");
  });

  test("a payload cut short by the client's leaving records nothing and asks the engine nothing", async () => {
    const asked: number[] = [];
    const server = serve(
      {},
      {
        wrap: seeingPieces((input) => asked.push(input.pcm.length)),
      },
    );
    const client = await connectWyoming(server.port);
    client.send("audio-start", ha);
    client.raw(
      '{"type":"audio-chunk","data":{"rate":16000,"width":2,"channels":1},"payload_length":64000}\n',
    );
    client.raw(spoken().subarray(0, 1000));
    client.close();
    await client.closed;
    await Bun.sleep(300);
    expect(asked).toEqual([]);
    expect(await history(server)).toEqual([]);
    expect(server.app.logs.some((line) => line.msg === "wyoming event cut short")).toBe(true);
  });

  test("a payload_length promised and never sent ends at the idle timeout", async () => {
    const client = await connectWyoming(serve({ wyoming_idle_timeout_seconds: 1 }).port);
    client.raw('{"type":"audio-chunk","data":{"rate":16000,"width":2,"channels":1},"payload_length":1024}\n');
    client.raw(new Uint8Array(10));
    await expectError(client, "request_timeout");
  });
});

describe("Wyoming listener: limits", () => {
  test("past SVC_WYOMING_MAX_CONNECTIONS a new client takes the place of the longest idle one", async () => {
    const server = serve({}, { operator: { wyomingMaxConnections: 1 } });
    const first = await connectWyoming(server.port);
    first.send("describe");
    await first.next("info");
    const second = await connectWyoming(server.port);
    await expectError(first, "busy");
    await first.closed;
    expect((await transcribe(second, spoken())).data.text).toBe("go forward ten meters");
  });

  test("while every connection is transcribing, one more is sent busy and closed; the others go on", async () => {
    const server = serve({}, { operator: { wyomingMaxConnections: 1 } });
    const first = await connectWyoming(server.port);
    first.send("transcribe", { language: "en" });
    first.send("audio-start", ha);
    // Its pong says the audio-start before it has been read.
    first.send("ping", { text: "started" });
    await first.next("pong");
    const second = await connectWyoming(server.port);
    await expectError(second, "busy");
    await streamChunks(first, spoken(), ha, 1024);
    first.send("audio-stop");
    expect((await first.next("transcript")).data.text).toBe("go forward ten meters");
    // Done transcribing, it is idle again: a new client may take its place.
    const third = await connectWyoming(server.port);
    await expectError(first, "busy");
    third.send("describe");
    await third.next("info");
  });

  test("clients that connect and ping cannot lock Home Assistant out", async () => {
    const server = serve({}, { operator: { wyomingMaxConnections: 2 } });
    const pingers = await Promise.all([connectWyoming(server.port), connectWyoming(server.port)]);
    const pinging = setInterval(() => {
      for (const pinger of pingers) if (!pinger.isClosed()) pinger.send("ping", { text: "here" });
    }, 50);
    try {
      await Bun.sleep(200);
      const assist = await connectWyoming(server.port);
      expect((await transcribe(assist, spoken())).data.text).toBe("go forward ten meters");
      expect(pingers.filter((pinger) => pinger.isClosed())).toHaveLength(1);
    } finally {
      clearInterval(pinging);
    }
  });

  test("a connection that sends nothing for wyoming_idle_timeout_seconds is closed", async () => {
    const client = await connectWyoming(serve({ wyoming_idle_timeout_seconds: 1 }).port);
    const began = performance.now();
    await expectError(client, "request_timeout");
    expect(performance.now() - began).toBeGreaterThan(900);
  });

  test("the idle timeout does not run while a transcript is being made", async () => {
    const gate = Promise.withResolvers<void>();
    const server = serve(
      { wyoming_idle_timeout_seconds: 1 },
      {
        wrap: (transcriber) => ({
          ...transcriber,
          complete: async (input) => {
            await gate.promise;
            return transcriber.complete(input);
          },
        }),
      },
    );
    const client = await connectWyoming(server.port);
    client.send("audio-start", ha);
    await streamChunks(client, spoken(), ha, 8192);
    client.send("audio-stop");
    await Bun.sleep(1500);
    gate.resolve();
    expect((await client.next("transcript")).data.text).toBe("go forward ten meters");
  });

  test("audio past wyoming_max_utterance_seconds ends with audio_too_long", async () => {
    const server = serve({ wyoming_max_utterance_seconds: 5, wyoming_max_speed: 1000 });
    const client = await connectWyoming(server.port);
    client.send("audio-start", ha);
    await streamChunks(client, pcm16(new Float32Array(16_000 * 6)), ha, 8192);
    await expectError(client, "audio_too_long");
    expect(await history(server)).toEqual([]);
  });

  test("audio faster than wyoming_max_speed × real time ends with too_fast; others go on", async () => {
    const server = serve({ wyoming_max_speed: 2 });
    const calm = await connectWyoming(server.port);
    const hasty = await connectWyoming(server.port);
    // 6 s at once: past the 2 s a client may send in its first second at 2×.
    hasty.send("audio-start", ha);
    await streamChunks(hasty, pcm16(new Float32Array(16_000 * 6)), ha, 8192);
    await expectError(hasty, "too_fast");
    await hasty.closed;
    expect((await transcribe(calm, spoken(), ha, { bytesPerSecond: 64_000 })).data.text).toBe(
      "go forward ten meters",
    );
    expect(await history(server)).toHaveLength(1);
  });

  test("a header line over SVC_WYOMING_MAX_HEADER_SIZE is refused", async () => {
    const client = await connectWyoming(serve({}, { operator: { wyomingMaxHeaderBytes: 256 } }).port);
    client.raw(`{"type":"transcribe","data":{"language":"${"e".repeat(300)}"}}\n`);
    await expectError(client, "payload_too_large");
  });

  test("data over SVC_WYOMING_MAX_DATA_SIZE is refused from its header, before the bytes", async () => {
    const client = await connectWyoming(serve({}, { operator: { wyomingMaxDataBytes: 256 } }).port);
    client.send("transcribe", { language: "en", context: { padding: "x".repeat(300) } });
    await expectError(client, "payload_too_large");
  });

  test("a payload over SVC_WYOMING_MAX_PAYLOAD_SIZE is refused from its header, before the bytes", async () => {
    const client = await connectWyoming(serve({}, { operator: { wyomingMaxPayloadBytes: 1024 } }).port);
    client.send("audio-start", ha);
    client.send("audio-chunk", ha, new Uint8Array(1024));
    client.raw('{"type":"audio-chunk","data":{"rate":16000,"width":2,"channels":1},"payload_length":1025}\n');
    await expectError(client, "payload_too_large");
  });
});

describe("Wyoming listener: leaving", () => {
  test.each([
    ["closes", (client: WyomingClient) => client.close()],
    ["resets", (client: WyomingClient) => client.abort()],
  ])(
    "a client that %s mid-utterance cancels its pieces: the engine is asked nothing more",
    async (_how, leave) => {
      const signals: AbortSignal[] = [];
      // Sent faster than real time, which this test is not about.
      const server = serve(
        { wyoming_max_speed: 1000 },
        {
          wrap: seeingPieces((input) => input.signal && signals.push(input.signal)),
        },
      );
      const client = await connectWyoming(server.port);
      client.send("audio-start", ha);
      // Three commands with pauses between them: pieces close while the engine is busy.
      const pause = pcm16(new Float32Array(8000));
      for (let i = 0; i < 3; i++) await streamChunks(client, Buffer.concat([spoken(), pause]), ha, 4096);
      for (let waited = 0; signals.length === 0 && waited < 10_000; waited += 20) await Bun.sleep(20);
      expect(signals.length).toBeGreaterThan(0);
      leave(client);
      await client.closed;
      for (let waited = 0; server.server.connections > 0 && waited < 2000; waited += 20) await Bun.sleep(20);
      const asked = signals.length;
      await Bun.sleep(300);
      expect(signals.length).toBe(asked);
      expect(signals.every((signal) => signal.aborted)).toBe(true);
      expect(await history(server)).toEqual([]);
    },
  );

  test("stopping the server closes its connections and cancels their work", async () => {
    const server = serve();
    const client = await connectWyoming(server.port);
    client.send("audio-start", ha);
    await streamChunks(client, spoken(), ha, 4096);
    server.server.stop();
    await client.closed;
    expect(server.server.connections).toBe(0);
    await Bun.sleep(200);
    expect(await history(server)).toEqual([]);
  });
});
