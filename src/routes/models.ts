import * as v from "valibot";
import type { EngineId } from "../dictation/engines/ids.ts";
import { engineIds } from "../dictation/engines/ids.ts";
import { type EngineModelServices, storeEngines } from "../dictation/engines/stores.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { documentedRoutes } from "../http/documented-routes.ts";

const idParams = v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(100)) });
/** Which engine's models: one whose models are files to download (default: the selected one, if so). */
const engineField = v.optional(
  v.picklist(storeEngines, `engine must be one whose models are downloaded: ${storeEngines.join(", ")}`),
);
const engineQuery = v.object({ engine: engineField });
const deleteQuery = v.object({
  force: v.optional(v.picklist(["true", "false"], 'force must be "true" or "false"'), "false"),
  engine: engineField,
});

const downloadSchema = v.object({
  id: v.string(),
  receivedBytes: v.number(),
  totalBytes: v.nullable(v.number()),
  bytesPerSecond: v.number(),
  resumedFrom: v.number(),
  percent: v.nullable(v.number()),
  startedAt: v.string(),
});

const modelSchema = v.object({
  id: v.string(),
  file: v.string(),
  preset: v.boolean(),
  description: v.nullable(v.string()),
  languages: v.nullable(v.picklist(["en", "multilingual"])),
  quantization: v.nullable(v.picklist(["f16", "q5_1"])),
  sizeBytes: v.number(),
  sha256: v.nullable(v.string()),
  installed: v.boolean(),
  active: v.boolean(),
  partialBytes: v.number(),
  download: v.nullable(downloadSchema),
  lastFailure: v.nullable(v.object({ code: v.string(), message: v.string(), at: v.string() })),
});

const overviewSchema = v.object({
  engine: v.picklist(engineIds),
  active: v.string(),
  activeInstalled: v.boolean(),
  defaultModel: v.string(),
  baseUrl: v.string(),
  modelsDir: v.string(),
  models: v.array(modelSchema),
  downloads: v.array(downloadSchema),
});

const pullSchema = v.object({
  status: v.picklist(["installed", "downloading"]),
  joined: v.boolean(),
  download: v.optional(downloadSchema),
});

export function createModelsRoutes(deps: {
  models: EngineModelServices;
  settings: { get(key: "stt_engine"): EngineId };
  docs: ApiDocs;
}) {
  /** The store a request means: `?engine=`, else the selected engine's, else the first engine's. */
  const modelsOf = (engine: EngineId | undefined) => {
    const selected = deps.settings.get("stt_engine");
    const id = engine ?? (storeEngines.includes(selected) ? selected : storeEngines[0]);
    const service = id === undefined ? undefined : deps.models[id];
    if (!service) throw new Error(`no model store for ${id}`);
    return service;
  };
  return documentedRoutes(deps.docs, "/api/models", "Models")
    .get(
      "/",
      {
        access: "dictate",
        summary: "An engine's models: presets, installed files, its active model and running downloads",
        description:
          "For the engines whose models are files to download (GET /api/engines lists every engine): `?engine=` names one; without it, the selected engine if it downloads, else the first that does (whisper, whose active model is the stt_model setting).",
        query: engineQuery,
        responses: { 200: { description: "Overview", schema: overviewSchema } },
      },
      (c) => c.json(modelsOf(c.req.valid("query").engine).overview()),
    )
    .post(
      "/:id/pull",
      {
        summary: "Download a preset model in the background",
        errors: ["invalid_model_id", "download_in_progress", "storage_full"],
        description:
          "Answers 202 at once; progress arrives on /api/events as models.progress (at most 4 per second), then models.installed or models.failed (its code; the message is the model's lastFailure in GET /api/models). An interrupted download resumes where it stopped. Pulling a model that is already downloading joins that download; an installed model answers 200. 409 download_in_progress when another svc process (the CLI) is downloading it.",
        params: idParams,
        query: engineQuery,
        responses: {
          200: { description: "Already installed", schema: pullSchema },
          202: { description: "Downloading", schema: pullSchema },
        },
      },
      (c) => {
        const models = modelsOf(c.req.valid("query").engine);
        const { status, joined, download } = models.pull(c.req.valid("param").id);
        return c.json({ status, joined, download }, status === "installed" ? 200 : 202);
      },
    )
    .delete(
      "/:id",
      {
        summary: "Delete a model, or cancel its download",
        errors: ["invalid_model_id", "model_in_use"],
        description:
          "Removes the model file and any partial download. The engine's active model is refused with 409 model_in_use unless force=true.",
        params: idParams,
        query: deleteQuery,
        responses: { 204: { description: "Deleted" } },
      },
      async (c) => {
        const { force, engine } = c.req.valid("query");
        await modelsOf(engine).remove(c.req.valid("param").id, { force: force === "true" });
        return c.body(null, 204);
      },
    );
}
