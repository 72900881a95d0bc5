import { dlopen } from "bun:ffi";
import { existsSync } from "node:fs";
import { AppError } from "../../../errors.ts";
import { engineLanguage } from "../../language.ts";
import type { EngineAvailability, SpeechEngine, TranscribeOptions, TranscriptionResult } from "../types.ts";
import { SPHINX_LIBRARIES, SPHINX_MODEL_DIR } from "./ffi.ts";
import type { SphinxReply, SphinxRequest } from "./worker.ts";

export interface SphinxEngineOptions {
  /** Directory holding `en-us/`, `en-us.lm.bin` and `cmudict-en-us.dict` (Debian's pocketsphinx-en-us). */
  modelDir?: string;
  /** Called with vocabulary words the pronouncing dictionary cannot spell (so they cannot be recognised). */
  onUnspellable?: (words: string[]) => void;
}

/** The worker's path inside a compiled binary built with `--root .` and this entrypoint (scripts/build.ts). */
export const SPHINX_WORKER_ENTRY = "src/dictation/engines/sphinx/worker.ts";

/** From source the worker sits beside this module; in a compiled binary, at its entrypoint path. */
function workerSpecifier(): string | URL {
  const compiled = /\/\$bunfs\/|\/~BUN\//.test(import.meta.url);
  return compiled ? `./${SPHINX_WORKER_ENTRY}` : new URL("./worker.ts", import.meta.url);
}

const HINT =
  "Install PocketSphinx: apt-get install -y libpocketsphinx3 pocketsphinx-en-us (Debian or Ubuntu).";
const MODEL_FILES = ["en-us/mdef", "en-us.lm.bin", "cmudict-en-us.dict"];

/** Whether Debian's PocketSphinx libraries and English model are installed; loads no model. */
export function probeSphinx(modelDir: string = SPHINX_MODEL_DIR): EngineAvailability {
  if (process.platform !== "linux") {
    return {
      available: false,
      reason: "The sphinx engine uses Debian's libpocketsphinx, on Linux only.",
      hint: HINT,
    };
  }
  const probes = [
    [SPHINX_LIBRARIES.sphinxbase, "cmd_ln_free_r"],
    [SPHINX_LIBRARIES.pocketsphinx, "ps_args"],
  ] as const;
  for (const [library, symbol] of probes) {
    try {
      dlopen(library, { [symbol]: { args: [], returns: "void" } }).close();
    } catch {
      return { available: false, reason: `${library} is not installed.`, hint: HINT };
    }
  }
  const missing = MODEL_FILES.find((file) => !existsSync(`${modelDir}/${file}`));
  if (missing)
    return { available: false, reason: `The model file ${modelDir}/${missing} is missing.`, hint: HINT };
  return { available: true };
}

function toInt16(pcm: Float32Array): Int16Array<ArrayBuffer> {
  const out = new Int16Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) {
    const v = Math.max(-1, Math.min(1, pcm[i] ?? 0));
    out[i] = v < 0 ? v * 32768 : v * 32767;
  }
  return out;
}

function checkLanguage(language: string | undefined): void {
  const lang = engineLanguage(language ?? "");
  if (lang === "" || lang === "auto" || lang === "en") return;
  throw new AppError(
    "unsupported_language",
    `The sphinx engine only transcribes English, not "${language}".`,
    {
      details: { language, hint: "Use the whisper engine with a multilingual model, or a remote engine." },
    },
  );
}

const failed = (message: string) => new AppError("engine_failed", `PocketSphinx failed: ${message}`);

/**
 * PocketSphinx in a worker thread, model loaded once (~0.4 s) and kept. Requests run one at a time in
 * arrival order; an abort rejects at once, and a decode not yet started is skipped (one started runs
 * to its end: see ffi.ts).
 */
export async function createSphinxEngine(options: SphinxEngineOptions = {}): Promise<SpeechEngine> {
  const modelDir = options.modelDir ?? SPHINX_MODEL_DIR;
  const availability = probeSphinx(modelDir);
  if (!availability.available) {
    throw new AppError("engine_unavailable", availability.reason, {
      details: { engine: "sphinx", hint: HINT },
    });
  }
  const worker = new Worker(workerSpecifier());
  const ended = new Promise((resolve) => worker.addEventListener("close", resolve, { once: true }));
  // Bun's Worker has ref/unref; the DOM lib's type, which tsconfig also loads, does not declare them.
  const handle = worker as unknown as { ref(): void; unref(): void };
  const pending = new Map<
    number,
    { resolve: (r: TranscriptionResult) => void; reject: (e: unknown) => void }
  >();
  let nextId = 1;
  let state: "starting" | "ready" | "closed" | "broken" = "starting";
  let onLifecycle: ((reply: SphinxReply | Error) => void) | undefined;
  const send = (message: SphinxRequest, transfer: ArrayBuffer[] = []) =>
    worker.postMessage(message, { transfer });
  // A worker with queued work keeps the process alive (a CLI run must wait for its transcript); an idle one must not.
  const settle = (id: number) => {
    pending.delete(id);
    if (pending.size === 0) handle.unref();
  };

  worker.addEventListener("message", (event: MessageEvent<SphinxReply>) => {
    const reply = event.data;
    if (reply.type === "ready" || reply.type === "init-failed" || reply.type === "closed")
      return onLifecycle?.(reply);
    const job = pending.get(reply.id);
    if (!job) return; // aborted by the caller already
    settle(reply.id);
    if (reply.type === "done") {
      if (reply.unspellable.length > 0) options.onUnspellable?.(reply.unspellable);
      job.resolve({ text: reply.text, segments: reply.segments, language: "en" });
    } else job.reject(reply.type === "failed" ? failed(reply.message) : new Error("cancelled"));
  });
  worker.addEventListener("error", (event: ErrorEvent) => {
    state = "broken";
    const error = failed(`the worker stopped: ${event.message}`);
    for (const [id, job] of pending) {
      settle(id);
      job.reject(error);
    }
    onLifecycle?.(error);
  });

  const lifecycle = (expect: SphinxReply["type"]) =>
    new Promise<void>((resolve, reject) => {
      onLifecycle = (reply) => {
        onLifecycle = undefined;
        if (reply instanceof Error) reject(reply);
        else if (reply.type === expect) resolve();
        else
          reject(
            new AppError(
              "engine_unavailable",
              `PocketSphinx could not start: ${"message" in reply ? reply.message : reply.type}`,
            ),
          );
      };
    });
  const ready = lifecycle("ready");
  send({ type: "init", modelDir });
  try {
    await ready;
  } catch (error) {
    worker.terminate();
    throw error;
  }
  state = "ready";
  handle.unref();

  async function transcribe(pcm: Float32Array, opts: TranscribeOptions = {}): Promise<TranscriptionResult> {
    if (state !== "ready") throw new AppError("engine_unavailable", `The sphinx engine is ${state}.`);
    opts.signal?.throwIfAborted();
    checkLanguage(opts.language);
    if (opts.translate) {
      throw new AppError(
        "translation_unsupported",
        "PocketSphinx transcribes English only and cannot translate: use the whisper engine with a multilingual model (tiny, base, small).",
      );
    }
    if (pcm.length === 0) return { text: "", segments: [], language: "en" };
    const id = nextId++;
    const cancel = new Int32Array(new SharedArrayBuffer(4));
    const samples = toInt16(pcm);
    return new Promise<TranscriptionResult>((resolve, reject) => {
      const onAbort = () => {
        Atomics.store(cancel, 0, 1);
        settle(id);
        reject(opts.signal?.reason);
      };
      const done = () => opts.signal?.removeEventListener("abort", onAbort);
      pending.set(id, {
        resolve: (result) => {
          done();
          resolve(result);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      handle.ref();
      send({ type: "transcribe", id, pcm: samples, vocabulary: [...(opts.vocabulary ?? [])], cancel }, [
        samples.buffer,
      ]);
    });
  }

  return {
    id: "sphinx",
    transcribe,
    async close() {
      if (state === "closed") return;
      const wasReady = state === "ready";
      state = "closed";
      if (wasReady) {
        const closed = lifecycle("closed");
        send({ type: "close" });
        await Promise.race([closed, Bun.sleep(5000)]).catch(() => {});
      }
      worker.terminate();
      // The thread frees the rest of its C heap as it ends: keep_alive trims after that.
      await Promise.race([ended, Bun.sleep(5000)]);
    },
  };
}
