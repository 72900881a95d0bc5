import { AppError } from "../../../errors.ts";
import type { EngineDefinition } from "../definition.ts";
import { createSphinxEngine, probeSphinx, SPHINX_WORKER_ENTRY } from "./engine.ts";

const sphinxModel = "en-us";

/** CMU PocketSphinx through Debian's library, English only, in a Worker; biased by vocabulary words. */
export const sphinxEngine: EngineDefinition = {
  title: "PocketSphinx (on this machine)",
  description:
    "English only and far less accurate, but needs no model download (Debian packages libpocketsphinx3 and pocketsphinx-en-us).",
  settings: [],
  concurrency: () => 1,
  bias: "words",
  // One model, the one Debian installs.
  activeModel: () => sphinxModel,
  models() {
    const availability = probeSphinx();
    return [
      {
        id: sphinxModel,
        installed: availability.available,
        active: true,
        languages: ["en"],
        description: availability.available
          ? "PocketSphinx's US English model (stt_engine sphinx)."
          : `${availability.reason} ${availability.hint}`,
        attribution: { name: "CMU Sphinx", url: "https://cmusphinx.github.io" },
        created: 0,
      },
    ];
  },
  modelPerRequest: false,
  select() {
    const availability = probeSphinx();
    if (!availability.available) {
      throw new AppError("engine_unavailable", `The sphinx engine is not available: ${availability.reason}`, {
        details: { hint: availability.hint },
      });
    }
    return { model: sphinxModel, key: sphinxModel, create: () => createSphinxEngine() };
  },
  workerEntries: [SPHINX_WORKER_ENTRY],
};
