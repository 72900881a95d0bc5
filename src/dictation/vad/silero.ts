// Silero VAD v6 in a process of its own (silero-process.ts): the model loads and scores there, so
// neither holds the server's event loop, and closing the model ends that process, which gives all
// its memory back. This module is imported only when the detector is first needed.
import type { Subprocess } from "bun";
import { selfCommand } from "../../self-command.ts";
import type { SileroReply, SileroRequest } from "./silero-process.ts";
import type { FrameModel, FrameScorer } from "./types.ts";

/** The hidden command main.ts answers by serving Silero (the same executable, or main.ts from source). */
export const SILERO_COMMAND = "__silero-vad";

/** Starts the process and loads the model in it; rejects when the model cannot run here. */
export async function loadSilero(): Promise<FrameModel> {
  const waiting = new Map<number, { resolve(value: number): void; reject(error: Error): void }>();
  let nextId = 0;
  let nextStream = 0;
  let failure: Error | undefined;
  let settle: { resolve(): void; reject(error: Error): void } | undefined;

  const fail = (error: Error) => {
    failure ??= error;
    for (const pending of waiting.values()) pending.reject(failure);
    waiting.clear();
    settle?.reject(failure);
  };
  const child: Subprocess = Bun.spawn(selfCommand(SILERO_COMMAND), {
    stdio: ["ignore", "ignore", "inherit"],
    serialization: "advanced",
    ipc(reply: SileroReply) {
      if (reply.type === "ready") return settle?.resolve();
      if (reply.type === "load-failed") return settle?.reject(new Error(reply.message));
      const pending = waiting.get(reply.id);
      waiting.delete(reply.id);
      if (reply.type === "scored") pending?.resolve(reply.probability);
      else pending?.reject(new Error(reply.message));
    },
  });
  child.exited.then((code) => fail(new Error(`the Silero process ended (exit ${code})`)));
  const send = (request: SileroRequest) => child.send(request);

  const ready = new Promise<void>((resolve, reject) => {
    settle = { resolve, reject };
  });
  send({ type: "load" });
  try {
    await ready;
  } catch (error) {
    child.kill();
    throw error;
  }

  function scorer(): FrameScorer {
    const stream = nextStream++;
    return {
      score(frame) {
        if (failure) return Promise.reject(failure);
        const id = nextId++;
        return new Promise<number>((resolve, reject) => {
          waiting.set(id, { resolve, reject });
          // A copy: the frame is often a view into a longer buffer, which a clone would send whole.
          send({ type: "score", id, stream, frame: frame.slice() });
        });
      },
      release: () => {
        if (!failure) send({ type: "release", stream });
      },
    };
  }

  return {
    kind: "silero",
    scorer,
    async close() {
      fail(new Error("the voice activity detector was unloaded"));
      child.kill();
      await child.exited;
    },
  };
}
