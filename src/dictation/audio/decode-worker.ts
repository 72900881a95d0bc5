// Worker entry that decodes compressed uploads: audio-decode's WASM calls are synchronous (590 s of
// 6 kbit/s Opus is ~1.4 s of CPU) and would otherwise hold the server's event loop. `bun build
// --compile` needs this file listed as an extra entrypoint (scripts/compile.ts).

import type { ErrorCode } from "../../error-codes.ts";
import { isAppError, reasonOf } from "../../errors.ts";
import { type CompressedOptions, type DecodedStream, decodeCompressed } from "./compressed.ts";

export type DecodeRequest = { id: number; bytes: Uint8Array; options: CompressedOptions };

export type DecodeReply =
  | { type: "done"; id: number; decoded: DecodedStream }
  | { type: "failed"; id: number; code: ErrorCode; message: string; details: unknown }
  | { type: "crashed"; id: number; message: string };

const port = self as unknown as Worker;

port.onmessage = async (event: MessageEvent<DecodeRequest>) => {
  const { id, bytes, options } = event.data;
  try {
    const decoded = await decodeCompressed(bytes, options);
    const reply: DecodeReply = { type: "done", id, decoded };
    port.postMessage(reply, { transfer: [decoded.pcm.buffer as ArrayBuffer] });
  } catch (error) {
    const reply: DecodeReply = isAppError(error)
      ? { type: "failed", id, code: error.code, message: error.message, details: error.details }
      : { type: "crashed", id, message: reasonOf(error) };
    port.postMessage(reply);
  }
};
