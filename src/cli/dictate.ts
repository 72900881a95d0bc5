import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { decodeAudio, SAMPLE_RATE } from "../dictation/audio/index.ts";
import { createLiveDriver } from "../dictation/live/driver.ts";
import { liveDoors } from "../dictation/live/limits.ts";
import { type ServerMessage, segmentMessage } from "../dictation/live/protocol.ts";
import { explain } from "../errors.ts";
import { createLiveLines } from "./live-lines.ts";
import { appContextOption, type OfflineCommand } from "./transcribe.ts";

export const dictateHelp = `Usage: svc dictate [options] FILE

Streams a recording through live dictation, the path GET /api/dictate takes: the audio is cut at
pauses and each piece transcribed as it closes (after the plugins' beforeTranscribe), partial
guesses come while a piece is open, and at the end the text goes through cleanup, dictionary and
the plugins' text hooks once. Uses the settings in
SVC_DB_PATH. Partials (~) and committed pieces (+) go to stderr, the final text to stdout. On a
terminal the partial is one line rewritten in place until its piece is committed; piped, every
message is its own line.

Options:
  --realtime              feed the audio at the pace it was spoken (default: as fast as it decodes)
  --json                  print each message GET /api/dictate would send (partial, segment,
                          final) as one JSON line on stdout instead
  --language CODE         language of the recording (default: the language setting)
  --app-context CONTEXT   app name or JSON {"app","title","url"} that selects a format
  --no-history            do not store the result in history`;

/** 100 ms of audio: what a client sends per frame. */
const FRAME = SAMPLE_RATE / 10;

/** Runs `svc dictate` over a runtime that `open` builds. */
export const runDictateCommand: OfflineCommand = async (argv, open, out) => {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      realtime: { type: "boolean" },
      json: { type: "boolean" },
      language: { type: "string" },
      "app-context": { type: "string" },
      "no-history": { type: "boolean" },
    },
    allowPositionals: true,
  });
  const [file, ...extra] = positionals;
  if (file === undefined || extra.length > 0) {
    out.stderr(`svc: dictate needs one FILE\n\n${dictateHelp}\n`);
    return 2;
  }
  const appContext = appContextOption(values["app-context"], out);
  if (appContext === undefined) return 2;
  // --json writes what GET /api/dictate would send, one message a line (dictation/live/protocol.ts).
  const event = (message: ServerMessage) => out.stdout(`${JSON.stringify(message)}\n`);
  const lines = createLiveLines(out.stderr, out.stderrTerminal ?? { tty: false });
  const runtime = await open();
  try {
    const { settings } = runtime.services;
    const { pcm } = await decodeAudio(new Uint8Array(readFileSync(file)), undefined, {
      maxDurationMs: settings.get("dictate_max_session_seconds") * 1000,
    });
    let failed: { error: unknown } | undefined;
    const { transcriber, vad } = runtime.dictation;
    const driver = createLiveDriver({ transcriber, vad, door: liveDoors.cli, settings });
    const live = driver.connect({ fail: (error) => (failed ??= { error }) });
    live.start({
      // The decoded recording goes in as a client's 16 kHz float frames would.
      audio: { encoding: "f32le", sampleRate: SAMPLE_RATE, channels: 1 },
      request: { language: values.language, appContext, record: !values["no-history"] },
      onPartial: (text) => (values.json ? event({ type: "partial", text }) : lines.partial(text)),
      onSegment: (segment) => (values.json ? event(segmentMessage(segment)) : lines.commit(segment.text)),
    });
    for (let at = 0; at < pcm.length && failed === undefined; at += FRAME) {
      const frame = pcm.subarray(at, at + FRAME);
      live.audio(new Uint8Array(frame.buffer, frame.byteOffset, frame.byteLength));
      if (values.realtime) await Bun.sleep(100);
    }
    if (failed) throw failed.error;
    const final = await live.stop();
    live.close();
    lines.clear();
    if (values.json) event({ type: "final", ...final });
    else out.stdout(`${final.text}\n`);
    return 0;
  } catch (error) {
    lines.clear();
    out.stderr(`svc: ${file}: ${explain(error)}\n`);
    return 1;
  } finally {
    await runtime.close();
  }
};
