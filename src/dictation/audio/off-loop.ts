// Compressed uploads are decoded in a worker thread (decode-worker.ts), one at a time in arrival
// order, so a long file never holds the event loop: GET /api/health waited 1.4 s behind 590 s of
// Opus noise decoded in place. The worker starts on first use and stays until `closeDecodeWorker`.
import { AppError } from "../../errors.ts";
import type { CompressedOptions, DecodedStream } from "./compressed.ts";
import type { DecodeReply, DecodeRequest } from "./decode-worker.ts";

/** The worker's path inside a compiled binary built with `--root .` and this entrypoint (scripts/compile.ts). */
export const DECODE_WORKER_ENTRY = "src/dictation/audio/decode-worker.ts";

/** From source the worker sits beside this module; in a compiled binary, at its entrypoint path. */
function workerSpecifier(): string | URL {
  const compiled = /\/\$bunfs\/|\/~BUN\//.test(import.meta.url);
  return compiled ? `./${DECODE_WORKER_ENTRY}` : new URL("./decode-worker.ts", import.meta.url);
}

interface Job {
  resolve(decoded: DecodedStream): void;
  reject(error: unknown): void;
}

let worker: Worker | undefined;
const pending = new Map<number, Job>();
let nextId = 1;

// Bun's Worker has ref/unref; the DOM lib's type, which tsconfig also loads, does not declare them.
const handle = (w: Worker) => w as unknown as { ref(): void; unref(): void };

function started(): Worker {
  if (worker) return worker;
  const fresh = new Worker(workerSpecifier());
  fresh.addEventListener("message", (event: MessageEvent<DecodeReply>) => {
    const reply = event.data;
    const job = pending.get(reply.id);
    pending.delete(reply.id);
    // A worker with queued work keeps the process alive (a CLI run must wait for its text); an idle one must not.
    if (pending.size === 0) handle(fresh).unref();
    if (reply.type === "done") job?.resolve(reply.decoded);
    else if (reply.type === "failed")
      job?.reject(new AppError(reply.code, reply.message, { details: reply.details }));
    else job?.reject(new Error(`the audio decoder failed: ${reply.message}`));
  });
  // A worker that died takes its jobs with it; the next decode starts a fresh one.
  fresh.addEventListener("error", (event: ErrorEvent) => {
    if (worker === fresh) worker = undefined;
    fresh.terminate();
    const error = new Error(`the audio decoder stopped: ${event.message}`);
    for (const job of pending.values()) job.reject(error);
    pending.clear();
  });
  worker = fresh;
  return fresh;
}

/** `decodeCompressed` in the worker: the same result and the same coded errors. */
export function decodeOffLoop(bytes: Uint8Array, options: CompressedOptions): Promise<DecodedStream> {
  const target = started();
  const id = nextId++;
  // A copy of just these bytes: the view is often part of a larger body, which a clone would send whole.
  const request: DecodeRequest = { id, bytes: bytes.slice(), options };
  return new Promise<DecodedStream>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    handle(target).ref();
    target.postMessage(request, { transfer: [request.bytes.buffer as ArrayBuffer] });
  });
}

/** Ends the worker unless it is decoding, which gives its codecs' memory back; answers whether it did. */
export function closeDecodeWorker(): boolean {
  if (pending.size > 0) return false;
  worker?.terminate();
  worker = undefined;
  return true;
}
