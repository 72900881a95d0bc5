import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { engineIds, isEngineId } from "../dictation/engines/ids.ts";
import { explain, reasonOf } from "../errors.ts";
import { type AppContext, parseAppContext } from "../formats/app-context.ts";
import type { Runtime } from "../runtime.ts";

export const transcribeHelp = `Usage: svc transcribe [options] FILE...

Transcribes audio files offline through the same pipeline as POST /api/transcribe (decoding, the
speech engine, cleanup, dictionary, plugins) using the settings in SVC_DB_PATH, and prints the
text, one file per line. Results are stored in history unless --no-history is given.

Options:
  --json                  print one JSON result per file (the API's response shape)
  --engine NAME           ${engineIds.join(" | ")}, for this run only (default: stt_engine)
  --language CODE         language of the recordings (default: the language setting)
  --app-context CONTEXT   app name or JSON {"app","title","url"} that selects a format
  --raw                   skip cleanup, dictionary and plugins
  --no-history            do not store the results in history`;

/** Where an offline command (svc transcribe, svc dictate) writes. */
export interface CommandOutput {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** stderr is a terminal (of this many columns): progress may be rewritten in place. */
  stderrTerminal?: { tty: boolean; columns?: number };
}

/** An offline command over a runtime that `open` builds once. */
export type OfflineCommand = (
  argv: string[],
  open: () => Promise<Runtime>,
  out: CommandOutput,
) => Promise<number>;

/** The --app-context option, or undefined after saying on stderr why it cannot be read. */
export function appContextOption(
  value: string | undefined,
  out: CommandOutput,
): AppContext | null | undefined {
  try {
    return parseAppContext(value);
  } catch (error) {
    out.stderr(`svc: --app-context: ${reasonOf(error)}\n`);
    return undefined;
  }
}

/** Runs `svc transcribe` over a runtime that `open` builds once for all files. */
export const runTranscribeCommand: OfflineCommand = async (argv, open, out) => {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      json: { type: "boolean" },
      engine: { type: "string" },
      language: { type: "string" },
      "app-context": { type: "string" },
      raw: { type: "boolean" },
      "no-history": { type: "boolean" },
    },
    allowPositionals: true,
  });
  if (positionals.length === 0) {
    out.stderr(`svc: transcribe needs at least one FILE\n\n${transcribeHelp}\n`);
    return 2;
  }
  const engine = values.engine;
  if (engine !== undefined && !isEngineId(engine)) {
    out.stderr(`svc: --engine must be ${engineIds.join(", ")}\n`);
    return 2;
  }
  const appContext = appContextOption(values["app-context"], out);
  if (appContext === undefined) return 2;
  const runtime = await open();
  let failures = 0;
  try {
    for (const file of positionals) {
      try {
        const result = await runtime.dictation.transcriber.transcribe({
          audio: new Uint8Array(readFileSync(file)),
          request: {
            source: "cli",
            appContext,
            language: values.language,
            skipPostProcess: values.raw ?? false,
            engine,
            record: !values["no-history"],
          },
        });
        out.stdout(values.json ? `${JSON.stringify({ file, ...result })}\n` : `${result.text}\n`);
      } catch (error) {
        failures++;
        out.stderr(`svc: ${file}: ${explain(error)}\n`);
      }
    }
  } finally {
    await runtime.close();
  }
  return failures === 0 ? 0 : 1;
};
