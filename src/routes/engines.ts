import * as v from "valibot";
import type { EngineContext } from "../dictation/engines/definition.ts";
import { engineIds } from "../dictation/engines/ids.ts";
import { type EngineView, engineViews } from "../dictation/engines/models.ts";
import { SAMPLE_RATE } from "../dictation/engines/types.ts";
import type { Recogniser } from "../dictation/recognise.ts";
import { noTimings } from "../dictation/result.ts";
import { engineRunErrors } from "../error-codes.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { documentedRoutes } from "../http/documented-routes.ts";
import { describes } from "../validation.ts";

const modelSchema = v.object({
  id: v.string(),
  installed: v.boolean(),
  active: v.boolean(),
  languages: v.array(v.string()),
  description: v.string(),
  attribution: v.object({ name: v.string(), url: v.string() }),
  created: v.number(),
});

const engineSchema = describes<EngineView>()(
  v.object({
    id: v.picklist(engineIds),
    title: v.string(),
    description: v.string(),
    models: v.array(modelSchema),
    runtime: v.optional(
      v.object({
        build: v.string(),
        device: v.string(),
        note: v.optional(v.string()),
      }),
    ),
  }),
);

const idParams = v.object({ id: v.picklist(engineIds, `the engine is one of ${engineIds.join(", ")}`) });

const checkSchema = v.object({
  id: v.picklist(engineIds),
  model: v.string(),
  /** The check's time, the engine's load included. */
  ms: v.number(),
});

/** What a check sends: a second of silence, enough for any engine to load and answer. */
const checkAudio = new Float32Array(SAMPLE_RATE);

export function createEnginesRoutes(deps: { engines: EngineContext; recogniser: Recogniser; docs: ApiDocs }) {
  return documentedRoutes(deps.docs, "/api/engines", "Models")
    .get(
      "/",
      {
        summary: "The speech engines and the models each can answer with",
        access: "dictate",
        description:
          "Every engine `stt_engine` can name, in the registry's order, with its title, a description, and its models: the active one first (listed even when it is not installed, with what it still needs), with the languages each speaks. An engine's own settings are the group named by its id in GET /api/settings/schema.",
        responses: {
          200: { description: "The engines", schema: v.object({ items: v.array(engineSchema) }) },
        },
      },
      (c) => c.json({ items: engineViews(deps.engines) }),
    )
    .post(
      "/:id/check",
      {
        summary: "Try an engine with its current settings before dictating with it",
        errors: ["invalid_request", ...engineRunErrors],
        description:
          "Loads the engine with its settings as they are now (whether or not stt_engine names it) and has it transcribe one second of silence, in the dictation queue like any recording: a remote server is sent that request, a local model is loaded (and kept, under keep_alive). 200 when it answered; otherwise the error a dictation would get, with its code and a message that says what to change. The console checks an engine this way before switching stt_engine to it. Nothing is stored.",
        params: idParams,
        responses: { 200: { description: "The engine answered", schema: checkSchema } },
      },
      async (c) => {
        const { id } = c.req.valid("param");
        const started = performance.now();
        const { engine } = await deps.recogniser.recognisePiece({
          pcm: checkAudio,
          request: { engine: id },
          hooks: null,
          signal: c.req.raw.signal,
          timings: noTimings(),
        });
        return c.json({ id, model: engine.model, ms: Math.round(performance.now() - started) });
      },
    );
}
