// PocketSphinx 5prealpha (Debian's libpocketsphinx3) through bun:ffi. Synchronous C calls: this module
// is used from the sphinx worker, never on the server's main thread.
import { CString, dlopen, type Pointer, ptr, FFIType as T } from "bun:ffi";
import type { TranscriptSegment, TranscriptWord } from "../types.ts";

export const SPHINX_LIBRARIES = { pocketsphinx: "libpocketsphinx.so.3", sphinxbase: "libsphinxbase.so.3" };
export const SPHINX_MODEL_DIR = "/usr/share/pocketsphinx/model/en-us";

function openLibraries() {
  // cmd_ln_init is variadic, which FFI cannot call; cmd_ln_parse_r takes an argv array instead.
  const base = dlopen(SPHINX_LIBRARIES.sphinxbase, {
    cmd_ln_parse_r: { args: [T.ptr, T.ptr, T.i32, T.ptr, T.i32], returns: T.ptr },
    cmd_ln_free_r: { args: [T.ptr], returns: T.i32 },
    err_set_logfile: { args: [T.ptr], returns: T.i32 },
    ckd_free: { args: [T.ptr], returns: T.void },
  });
  const ps = dlopen(SPHINX_LIBRARIES.pocketsphinx, {
    ps_args: { args: [], returns: T.ptr },
    ps_init: { args: [T.ptr], returns: T.ptr },
    ps_free: { args: [T.ptr], returns: T.i32 },
    ps_start_utt: { args: [T.ptr], returns: T.i32 },
    ps_end_utt: { args: [T.ptr], returns: T.i32 },
    ps_process_raw: { args: [T.ptr, T.ptr, T.u64, T.i32, T.i32], returns: T.i32 },
    ps_get_hyp: { args: [T.ptr, T.ptr], returns: T.ptr },
    ps_add_word: { args: [T.ptr, T.ptr, T.ptr, T.i32], returns: T.i32 },
    ps_lookup_word: { args: [T.ptr, T.ptr], returns: T.ptr },
    ps_seg_iter: { args: [T.ptr], returns: T.ptr },
    ps_seg_next: { args: [T.ptr], returns: T.ptr },
    ps_seg_word: { args: [T.ptr], returns: T.ptr },
    ps_seg_frames: { args: [T.ptr, T.ptr, T.ptr], returns: T.void },
  });
  const close = () => {
    ps.close();
    base.close();
  };
  return { base: base.symbols, ps: ps.symbols, close };
}

const cstr = (s: string) => Buffer.from(`${s}\0`, "utf8");
/** 100 frames per second. */
const FRAME_MS = 10;
/** A pause this long (in frames) starts a new segment. */
const SEGMENT_GAP_FRAMES = 50;

export interface SphinxDecoder {
  /** Phones for a dictionary word ("G IH T"), or null when the dictionary lacks it. */
  lookup(word: string): string | null;
  /** `update`: rebuild the search now (~0.5 s); pass false for all but the last of a batch. */
  addWord(word: string, phones: string, update: boolean): boolean;
  /** Decodes 16 kHz Int16 PCM; returns null when `stop()` is already true. */
  decode(pcm: Int16Array, stop: () => boolean): { text: string; segments: TranscriptSegment[] } | null;
  close(): void;
}

export function openSphinxDecoder(modelDir: string = SPHINX_MODEL_DIR): SphinxDecoder {
  const lib = openLibraries();
  const argv = [
    "-hmm",
    `${modelDir}/en-us`,
    "-lm",
    `${modelDir}/en-us.lm.bin`,
    "-dict",
    `${modelDir}/cmudict-en-us.dict`,
    // Noise removal keeps a running noise estimate from one utterance to the next, so the same audio
    // gave other words depending on what the decoder heard before (another user's request, a live
    // session's guesses). Off, LibriVox WER drops from 29.3 to 26.7 %.
    "-remove_noise",
    "no",
    // Silence removal drops quiet frames before the search, so frame numbers stop being times.
    "-remove_silence",
    "no",
  ];
  const buffers = argv.map(cstr);
  const argvArray = new BigUint64Array(buffers.map((b) => BigInt(ptr(b))));
  lib.base.err_set_logfile(ptr(cstr("/dev/null")));
  const config = lib.base.cmd_ln_parse_r(null, lib.ps.ps_args(), argv.length, ptr(argvArray), 1);
  const decoder = config ? lib.ps.ps_init(config) : null;
  if (config) lib.base.cmd_ln_free_r(config); // ps_init keeps its own reference
  if (!decoder || typeof decoder === "bigint") {
    lib.close();
    throw new Error(`PocketSphinx could not load the model in ${modelDir}`);
  }
  const dec: Pointer = decoder;

  /** Segments from the last utterance's words; frames count from the utterance's start. */
  function readSegments(): TranscriptSegment[] {
    const segments: TranscriptSegment[] = [];
    const sf = new Int32Array(1);
    const ef = new Int32Array(1);
    let words: TranscriptWord[] = [];
    const at = (frame: number) => frame * FRAME_MS;
    const flush = () => {
      const first = words[0];
      const last = words.at(-1);
      if (!first || !last) return;
      const text = words.map((word) => word.word).join(" ");
      segments.push({ startMs: first.startMs, endMs: last.endMs, text, words });
      words = [];
    };
    for (let seg = lib.ps.ps_seg_iter(dec); seg; seg = lib.ps.ps_seg_next(seg)) {
      const wordPtr = lib.ps.ps_seg_word(seg);
      const word = wordPtr ? new CString(wordPtr).toString() : "";
      lib.ps.ps_seg_frames(seg, ptr(sf), ptr(ef));
      const [from = 0, to = 0] = [sf[0], ef[0]];
      // Fillers (<s>, </s>, <sil>, [NOISE]) are not words; a long one ends the segment.
      if (/^[<[]/.test(word)) {
        if (to - from >= SEGMENT_GAP_FRAMES) flush();
        continue;
      }
      // "the(2)" is the second pronunciation of "the".
      words.push({ word: word.replace(/\(\d+\)$/, ""), startMs: at(from), endMs: at(to) });
    }
    flush();
    return segments;
  }

  return {
    lookup(word) {
      const phones = lib.ps.ps_lookup_word(dec, ptr(cstr(word)));
      if (!phones) return null;
      const text = new CString(phones).toString();
      lib.base.ckd_free(phones);
      return text;
    },
    addWord(word, phones, update) {
      return lib.ps.ps_add_word(dec, ptr(cstr(word)), ptr(cstr(phones)), update ? 1 : 0) >= 0;
    },
    decode(pcm, stop) {
      if (stop()) return null;
      // The whole utterance in one call: the cepstral mean is then the utterance's own, where fed in
      // chunks it is a running mean carried over from earlier utterances, and the words for the same
      // audio depended on what the decoder had heard before. The price: a decode, once started, runs
      // to its end (about a fifth of the audio's length here); the caller is answered at once.
      if (lib.ps.ps_start_utt(dec) < 0) throw new Error("ps_start_utt failed");
      if (lib.ps.ps_process_raw(dec, ptr(pcm), pcm.length, 0, 1) < 0) {
        lib.ps.ps_end_utt(dec);
        throw new Error("ps_process_raw failed");
      }
      if (lib.ps.ps_end_utt(dec) < 0) throw new Error("ps_end_utt failed");
      const hyp = lib.ps.ps_get_hyp(dec, ptr(new Int32Array(1)));
      const text = hyp ? new CString(hyp).toString().trim() : "";
      return { text, segments: text ? readSegments() : [] };
    },
    close() {
      lib.ps.ps_free(dec);
      lib.close();
    },
  };
}
