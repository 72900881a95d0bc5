import { closeSync, openSync, readSync } from "node:fs";
import { AppError } from "../../errors.ts";

/** Checks a model file before it is installed; throws an AppError when it is not usable. */
export type ModelValidator = (path: string) => void;

const GGML_MAGIC = 0x67676d6c;
const HEADER_BYTES = 48;

const invalid = (path: string, problem: string) =>
  new AppError(422, "invalid_model", `${path} is not a whisper.cpp ggml model: ${problem}.`, {
    details: { path, problem },
  });

/**
 * Reads the 12-field whisper.cpp ggml header only: enough to refuse a GGUF file, an HTML error page
 * saved as .bin or a truncated download. The engine's full validator (every tensor header) can be
 * passed to the store instead.
 */
export function checkGgmlHeader(path: string): void {
  const fd = openSync(path, "r");
  const header = Buffer.alloc(HEADER_BYTES);
  let read: number;
  try {
    read = readSync(fd, header, 0, HEADER_BYTES, 0);
  } finally {
    closeSync(fd);
  }
  if (read < HEADER_BYTES) throw invalid(path, `it is only ${read} bytes long`);
  if (header.readUInt32LE(0) !== GGML_MAGIC) {
    throw invalid(path, "it does not start with the ggml magic (a GGUF file or not a model at all?)");
  }
  const field = (index: number) => header.readInt32LE(4 + index * 4);
  const [nVocab, nAudioCtx, nState, , nAudioLayer, nTextCtx, , , nTextLayer, nMels] = Array.from(
    { length: 10 },
    (_, i) => field(i),
  );
  if (nVocab === undefined || nVocab < 51864 || nVocab > 51866) throw invalid(path, `n_vocab is ${nVocab}`);
  if (nAudioCtx !== 1500 || nTextCtx !== 448) throw invalid(path, "the context sizes are not whisper's");
  if (nState === undefined || nState < 1 || nState > 8192) throw invalid(path, `n_state is ${nState}`);
  for (const layers of [nAudioLayer, nTextLayer]) {
    if (layers === undefined || layers < 1 || layers > 64) throw invalid(path, `a layer count is ${layers}`);
  }
  if (nMels !== 80 && nMels !== 128) throw invalid(path, `n_mels is ${nMels}`);
}
