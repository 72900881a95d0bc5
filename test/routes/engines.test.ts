import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { engineIds } from "../../src/dictation/engines/ids.ts";
import { createTestApp } from "../helpers/app.ts";
import { syntheticModel } from "../helpers/synthetic-model.ts";

interface EngineList {
  items: {
    id: string;
    title: string;
    description: string;
    models: { id: string; installed: boolean; active: boolean; languages: string[]; description: string }[];
  }[];
}

const engines = async (app: ReturnType<typeof createTestApp>) =>
  (await (await app.request("/api/engines")).json()) as EngineList;

describe("GET /api/engines", () => {
  test("lists every engine in the registry's order, each with a title, a description and its models", async () => {
    const body = await engines(createTestApp());
    expect(body.items.map((engine) => engine.id)).toEqual([...engineIds]);
    for (const engine of body.items) {
      expect(engine.title.length).toBeGreaterThan(3);
      expect(engine.description.length).toBeGreaterThan(20);
      expect(engine.models.filter((model) => model.active)).toHaveLength(1);
    }
  });

  test("whisper's active model is listed first, not installed until its file is there", async () => {
    const modelsDir = mkdtempSync(join(tmpdir(), "svc-engines-"));
    const app = createTestApp({ modelsDir });
    const whisper = (await engines(app)).items.find((engine) => engine.id === "whisper");
    expect(whisper?.models).toEqual([
      expect.objectContaining({ id: "base.en", installed: false, active: true, languages: ["en"] }),
    ]);
    copyFileSync(syntheticModel("micro-multilingual"), join(modelsDir, "ggml-multi.bin"));
    copyFileSync(syntheticModel("micro"), join(modelsDir, "ggml-base.en.bin"));
    const after = (await engines(app)).items.find((engine) => engine.id === "whisper");
    expect(after?.models.map((model) => [model.id, model.installed, model.active])).toEqual([
      ["base.en", true, true],
      ["multi", true, false],
    ]);
    expect(after?.models[1]?.languages).toContain("de");
  });

  test("the remote engine's model is its setting, installed once the server is set", async () => {
    const app = createTestApp();
    const remote = async () => (await engines(app)).items.find((engine) => engine.id === "remote");
    expect((await remote())?.models[0]).toMatchObject({ installed: false });
    expect((await remote())?.models[0]?.description).toContain("remote_stt_base_url");
    app.services.settings.set("remote_stt_base_url", "http://127.0.0.1:9/v1");
    app.services.settings.set("remote_stt_model", "whisper-large-v3");
    expect((await remote())?.models[0]).toMatchObject({ id: "whisper-large-v3", installed: true });
  });
});
