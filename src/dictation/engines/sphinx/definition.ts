import { AppError } from "../../../errors.ts";
import type { EngineDefinition } from "../definition.ts";
import { createSphinxEngine, probeSphinx, SPHINX_WORKER_ENTRY } from "./engine.ts";

/** CMU PocketSphinx through Debian's library, English only, in a Worker; biased by vocabulary words. */
export const sphinxEngine: EngineDefinition = {
  settings: [],
  concurrency: () => 1,
  bias: "words",
  select() {
    const availability = probeSphinx();
    if (!availability.available) {
      throw new AppError("engine_unavailable", `The sphinx engine is not available: ${availability.reason}`, {
        details: { hint: availability.hint },
      });
    }
    return { model: "en-us", key: "en-us", create: () => createSphinxEngine() };
  },
  workerEntries: [SPHINX_WORKER_ENTRY],
};
