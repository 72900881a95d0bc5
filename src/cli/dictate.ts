import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { decodeAudio } from "../dictation/audio/index.ts";
import { SAMPLE_RATE } from "../dictation/audio/rate.ts";
import { createLiveSession } from "../dictation/live/session.ts";
import { explain } from "../errors.ts";
import { appContextOption, type OfflineCommand } from "./transcribe.ts";

export const dictateHelp = `Usage: svc dictate [options] FILE

Streams a recording through live dictation, the path GET /api/dictate takes: the audio is cut at
pauses and each piece transcribed as it closes, partial guesses come while a piece is open, and at
the end the text goes through cleanup, dictionary and plugins once. Uses the settings in
SVC_DB_PATH. Partials (~) and committed pieces (+) go to stderr, the final text to stdout.

Options:
  --realtime              feed the audio at the pace it was spoken (default: as fast as it decodes)
  --json                  print every event as one JSON line on stdout instead
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
  const event = (data: Record<string, unknown>) => out.stdout(`${JSON.stringify(data)}\n`);
  const runtime = await open();
  try {
    const { pcm } = await decodeAudio(new Uint8Array(readFileSync(file)), undefined, {
      maxDurationMs: runtime.services.settings.get("dictate_max_session_seconds") * 1000,
    });
    let failed: unknown;
    const session = createLiveSession({
      transcriber: runtime.dictation.transcriber,
      vad: runtime.dictation.vad.stream(),
      language: values.language,
      appContext,
      source: "cli",
      record: !values["no-history"],
      onPartial: (text) => (values.json ? event({ type: "partial", text }) : out.stderr(`~ ${text}\n`)),
      onSegment: (segment) =>
        values.json
          ? event({
              type: "segment",
              text: segment.text,
              start: Math.round(segment.startMs),
              end: Math.round(segment.endMs),
            })
          : out.stderr(`+ ${segment.text}\n`),
      onError: (error) => {
        failed ??= error;
      },
    });
    for (let at = 0; at < pcm.length && failed === undefined; at += FRAME) {
      session.push(pcm.subarray(at, at + FRAME));
      if (values.realtime) await Bun.sleep(100);
    }
    const final = await session.stop();
    if (values.json) event({ type: "final", ...final });
    else out.stdout(`${final.text}\n`);
    return 0;
  } catch (error) {
    out.stderr(`svc: ${file}: ${explain(error)}\n`);
    return 1;
  } finally {
    await runtime.close();
  }
};
