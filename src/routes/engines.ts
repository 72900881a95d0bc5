import * as v from "valibot";
import type { EngineContext } from "../dictation/engines/definition.ts";
import { engineIds } from "../dictation/engines/ids.ts";
import { type EngineView, engineViews } from "../dictation/engines/models.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { describes } from "../http/api-docs.ts";
import { documentedRoutes } from "../http/documented-routes.ts";

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
  }),
);

export function createEnginesRoutes(deps: { engines: EngineContext; docs: ApiDocs }) {
  return documentedRoutes(deps.docs, "/api/engines", "Models").get(
    "/",
    {
      summary: "The speech engines and the models each can answer with",
      access: "dictate",
      description:
        "Every engine `stt_engine` can name, in the registry's order, with its title, a description, and its models: the active one first (listed even when it is not installed, with what it still needs), with the languages each speaks. An engine's own settings are the group named by its id in GET /api/settings/schema.",
      responses: { 200: { description: "The engines", schema: v.object({ items: v.array(engineSchema) }) } },
    },
    (c) => c.json({ items: engineViews(deps.engines) }),
  );
}
