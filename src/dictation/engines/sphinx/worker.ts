// Worker entry that owns the PocketSphinx decoder: its C calls are synchronous (RTF ~0.2, so ~1 s for a
// 5 s clip) and would otherwise stall every request on the server. `bun build --compile` needs this
// file listed as an extra entrypoint.

import { reasonOf } from "../../../errors.ts";
import type { TranscriptSegment } from "../types.ts";
import { openSphinxDecoder, type SphinxDecoder } from "./ffi.ts";
import { applyTermCasing, planWord, termWords } from "./vocabulary.ts";

export type SphinxRequest =
  | { type: "init"; modelDir: string }
  | { type: "transcribe"; id: number; pcm: Int16Array; vocabulary: string[]; cancel: Int32Array }
  | { type: "close" };

export type SphinxReply =
  | { type: "ready" }
  | { type: "closed" }
  | { type: "init-failed"; message: string }
  | { type: "done"; id: number; text: string; segments: TranscriptSegment[]; unspellable: string[] }
  | { type: "failed"; id: number; message: string }
  | { type: "cancelled"; id: number };

const port = self as unknown as Worker;
const reply = (message: SphinxReply) => port.postMessage(message);
let decoder: SphinxDecoder | undefined;
/** Words already looked at, so each term costs dictionary look-ups only once per process. */
const planned = new Map<string, boolean>();

/** Adds what the dictionary can spell, rebuilding the search once per batch; returns what it cannot. */
function addVocabulary(dec: SphinxDecoder, terms: readonly string[]): string[] {
  const fresh = [...new Set(terms.flatMap(termWords))].filter((word) => !planned.has(word));
  const additions: { term: string; word: string; phones: string }[] = [];
  for (const term of fresh) {
    const plan = planWord(term, (w) => dec.lookup(w));
    planned.set(term, plan.kind !== "unspellable");
    if (plan.kind === "add") additions.push({ term, ...plan });
  }
  additions.forEach((add, i) => {
    if (!dec.addWord(add.word, add.phones, i === additions.length - 1)) planned.set(add.term, false);
  });
  return terms.flatMap(termWords).filter((word) => planned.get(word) === false);
}

function transcribe(
  dec: SphinxDecoder,
  request: Extract<SphinxRequest, { type: "transcribe" }>,
): SphinxReply {
  const { id, cancel } = request;
  if (Atomics.load(cancel, 0) !== 0) return { type: "cancelled", id };
  const unspellable = addVocabulary(dec, request.vocabulary);
  const result = dec.decode(request.pcm, () => Atomics.load(cancel, 0) !== 0);
  if (!result) return { type: "cancelled", id };
  const fix = (text: string) => applyTermCasing(text, request.vocabulary);
  const segments = result.segments.map((s) => ({
    ...s,
    text: fix(s.text),
    words: s.words?.map((word) => ({ ...word, word: fix(word.word) })),
  }));
  return { type: "done", id, text: fix(result.text), segments, unspellable };
}

port.onmessage = (event: MessageEvent<SphinxRequest>) => {
  const request = event.data;
  if (request.type === "init") {
    try {
      decoder = openSphinxDecoder(request.modelDir);
      reply({ type: "ready" });
    } catch (error) {
      reply({ type: "init-failed", message: reasonOf(error) });
    }
    return;
  }
  if (request.type === "close") {
    // Terminating the worker would not free the decoder's C heap (~150 MB), so free it first.
    decoder?.close();
    decoder = undefined;
    return reply({ type: "closed" });
  }
  if (!decoder) return reply({ type: "failed", id: request.id, message: "the decoder is not loaded" });
  try {
    reply(transcribe(decoder, request));
  } catch (error) {
    reply({
      type: "failed",
      id: request.id,
      message: reasonOf(error),
    });
  }
};
