import type { AppContext } from "../formats/app-context.ts";
import type { HistorySource } from "../history/items.ts";
import type { EngineId } from "./engines/types.ts";

// One dictation's options, as a door reads them from its client: declared here once and handed on
// whole from the door to the engine, each stage taking a `Pick` of what it reads. A new option is
// one field here, and the compiler points at every door and stage that should pass it.

/** What a client asks of one dictation: who it is for, and what the engine and the text pipeline do. */
export interface DictationRequest {
  /** The door it came in by (history, the plugin hooks' `source`); default `api`, or `live` for a live session. */
  source?: HistorySource;
  /** The name of the key the client used (history records it); none for a trusted client. */
  keyName?: string | null;
  /** Where the user dictates: which format applies, what the hooks are told; default none. */
  appContext?: AppContext | null;
  /** false: the result is not stored in history (the CLI's --no-history). */
  record?: boolean;
  /** Default: the `language` setting. */
  language?: string;
  /** This engine instead of the `stt_engine` setting (the CLI's --engine; the one a model's id names). */
  engine?: EngineId;
  /** An installed model for this dictation instead of the `stt_model` setting. */
  model?: string;
  /**
   * The caller's prompt, combined with the vocabulary within the engine's prompt budget (a live
   * piece's is this, then the text said before the piece).
   */
  prompt?: string;
  /** Terms to bias recognition towards, ahead of the vocabulary (/v1's `keywords`). */
  keywords?: readonly string[];
  /** To English, with a multilingual model (the translate task). */
  translate?: boolean;
  /** Time words too (`detail` segments carry them). */
  words?: boolean;
  temperature?: number;
  /** true: the engine's text, without the text pipeline (`x-skip-post-process`, the CLI's --raw). */
  skipPostProcess?: boolean;
}

/** What recognition reads of a request: which engine and model, and what it is asked. */
export type RecognitionRequest = Pick<
  DictationRequest,
  "language" | "engine" | "model" | "prompt" | "keywords" | "translate" | "words" | "temperature"
>;

/** What completion reads of a request: who it is for, and whether the text pipeline runs. */
export type CompletionRequest = Pick<
  DictationRequest,
  "source" | "keyName" | "appContext" | "record" | "skipPostProcess"
>;
