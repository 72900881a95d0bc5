import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { AppError } from "../../../errors.ts";
import { createFileCursor, type FileCursor } from "./file-cursor.ts";
import { expectedTensors, tensorBytes, weightType } from "./ggml-tensors.ts";

/**
 * Checks a whisper.cpp (legacy ggml) model file end to end before the native loader sees it.
 * whisper.cpp 1.7 dereferences a null context when loading fails and aborts on C++ exceptions, so
 * anything short of the exact layout it expects would crash the process instead of failing.
 */
export interface WhisperModelInfo {
  path: string;
  sizeBytes: number;
  /** "tiny", "base", "small", "medium", "large", or "custom" for other layer counts. */
  size: string;
  multilingual: boolean;
  nVocab: number;
  nAudioCtx: number;
  nState: number;
  nAudioLayer: number;
  nTextLayer: number;
  nMels: number;
  /** ggml file type with the quantisation version stripped (1 = f16, 9 = q5_1, …). */
  ftype: number;
  tensorCount: number;
}

const GGML_MAGIC = 0x67676d6c;
const N_FFT_BINS = 201;
const SIZES: Record<number, string> = { 4: "tiny", 6: "base", 12: "small", 24: "medium", 32: "large" };

export function invalidModel(path: string, problem: string): AppError {
  return new AppError("invalid_model", `The model file ${path} is not a usable whisper model: ${problem}.`, {
    details: { path, problem },
  });
}

function readHparams(cur: FileCursor, fail: (problem: string) => AppError) {
  if (cur.u32() !== GGML_MAGIC)
    throw fail("it does not start with the ggml magic (is it a GGUF or other file?)");
  const [
    nVocab = 0,
    nAudioCtx = 0,
    nState = 0,
    nAudioHead = 0,
    nAudioLayer = 0,
    nTextCtx = 0,
    nTextState = 0,
  ] = Array.from({ length: 7 }, () => cur.i32());
  const [nTextHead = 0, nTextLayer = 0, nMels = 0, rawFtype = 0] = Array.from({ length: 4 }, () => cur.i32());
  const ftype = rawFtype % 1000;
  const bad = (name: string) => fail(`header field ${name} is out of range`);
  if (![51864, 51865, 51866].includes(nVocab)) throw bad("n_vocab");
  if (nAudioCtx !== 1500 || nTextCtx !== 448) throw bad("n_audio_ctx/n_text_ctx");
  if (nState < 1 || nState > 8192 || nState !== nTextState) throw bad("n_state");
  if (nAudioHead < 1 || nState % nAudioHead !== 0) throw bad("n_audio_head");
  if (nTextHead < 1 || nState % nTextHead !== 0) throw bad("n_text_head");
  if (nAudioLayer < 1 || nAudioLayer > 64) throw bad("n_audio_layer");
  if (nTextLayer < 1 || nTextLayer > 64) throw bad("n_text_layer");
  if (nMels !== 80 && nMels !== 128) throw bad("n_mels");
  if (weightType(ftype) === undefined) throw fail(`file type ${ftype} is not supported`);
  return { nVocab, nState, nAudioLayer, nTextLayer, nMels, ftype };
}

function skipMelFilters(cur: FileCursor, nMels: number, fail: (problem: string) => AppError): void {
  const nMel = cur.i32();
  const nFft = cur.i32();
  if (nMel !== nMels || nFft !== N_FFT_BINS) throw fail("the mel filter bank has the wrong shape");
  cur.skip(nMel * nFft * 4);
}

/** whisper.cpp looks the single-space token up with `.at(" ")`, which throws when it is missing. */
function checkVocab(cur: FileCursor, nVocab: number, fail: (problem: string) => AppError): void {
  const count = cur.i32();
  if (count < 256 || count > nVocab) throw fail(`the vocabulary has ${count} tokens`);
  let hasSpace = false;
  for (let i = 0; i < count; i++) {
    const len = cur.u32();
    if (len > 1024) throw fail(`vocabulary token ${i} is ${len} bytes long`);
    if (len === 1 && cur.peekByte() === 0x20) hasSpace = true;
    cur.skip(len);
  }
  if (!hasSpace) throw fail('the vocabulary lacks the " " token');
}

function checkTensors(
  cur: FileCursor,
  hp: ReturnType<typeof readHparams>,
  fail: (p: string) => AppError,
): number {
  const expected = expectedTensors(hp);
  const seen = new Set<string>();
  while (!cur.atEnd()) {
    const nDims = cur.i32();
    const nameLen = cur.i32();
    const type = cur.i32();
    if (nDims < 1 || nDims > 3 || nameLen < 1 || nameLen > 256)
      throw fail(`tensor header at byte ${cur.offset} is corrupt`);
    const ne = Array.from({ length: nDims }, () => cur.i32());
    const name = cur.text(nameLen);
    const want = expected.get(name);
    if (!want || seen.has(name)) throw fail(`tensor "${name}" is unexpected or repeated`);
    if (want.ne.length !== nDims || want.ne.some((n, i) => n !== ne[i]))
      throw fail(`tensor "${name}" has the wrong shape`);
    if (type !== want.type) throw fail(`tensor "${name}" has type ${type}, expected ${want.type}`);
    const bytes = tensorBytes(type, ne);
    if (bytes === undefined) throw fail(`tensor "${name}" cannot be stored as type ${type}`);
    cur.skip(bytes);
    seen.add(name);
  }
  const missing = [...expected.keys()].filter((name) => !seen.has(name));
  if (missing.length > 0)
    throw fail(`${missing.length} tensors are missing (first: "${missing[0]}"); the file is truncated`);
  return seen.size;
}

/** Validates the file's header, vocabulary and every tensor header against its size; reads no weights. */
export function validateWhisperModel(path: string): WhisperModelInfo {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (cause) {
    throw new AppError("model_unavailable", `The whisper model file ${path} cannot be opened.`, {
      details: { path },
      cause,
    });
  }
  const fail = (problem: string) => invalidModel(path, problem);
  try {
    const sizeBytes = fstatSync(fd).size;
    const cur = createFileCursor(fd, sizeBytes, () => fail(`it is truncated (${sizeBytes} bytes)`));
    const hp = readHparams(cur, fail);
    skipMelFilters(cur, hp.nMels, fail);
    checkVocab(cur, hp.nVocab, fail);
    const tensorCount = checkTensors(cur, hp, fail);
    const size = SIZES[hp.nAudioLayer] ?? "custom";
    return { path, sizeBytes, size, multilingual: hp.nVocab >= 51865, nAudioCtx: 1500, tensorCount, ...hp };
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether a model file is English-only or multilingual, from its vocabulary size (the header's
 * second field); null when the file cannot be read as a whisper model. Reads 8 bytes.
 */
export function modelLanguages(path: string): "en" | "multilingual" | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null;
  }
  try {
    const header = Buffer.alloc(8);
    if (readSync(fd, header, 0, 8, 0) < 8 || header.readUInt32LE(0) !== GGML_MAGIC) return null;
    const nVocab = header.readInt32LE(4);
    if (nVocab === 51864) return "en";
    return nVocab === 51865 || nVocab === 51866 ? "multilingual" : null;
  } finally {
    closeSync(fd);
  }
}
