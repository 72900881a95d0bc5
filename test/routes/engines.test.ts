import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { engineIds } from "../../src/dictation/engines/ids.ts";
import { createTestApp } from "../helpers/app.ts";
import { fakeSpeechServer } from "../helpers/speech-server.ts";
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

describe("POST /api/engines/{id}/check", () => {
  const check = (app: ReturnType<typeof createTestApp>, id: string) =>
    app.request(`/api/engines/${id}/check`, { method: "POST" });
  const errorOf = async (res: Response) =>
    ((await res.json()) as { error: { code: string; message: string } }).error;

  test("asks the remote server for a second of silence with its settings, without switching to it", async () => {
    const seen: { model: unknown; seconds: number }[] = [];
    using upstream = fakeSpeechServer(async (request) => {
      const form = await request.formData();
      const file = form.get("file") as File;
      // 16-bit mono WAV at 16 kHz: the header, then 2 bytes a sample.
      seen.push({ model: form.get("model"), seconds: (file.size - 44) / 2 / 16_000 });
      return "";
    });
    const app = createTestApp();
    app.services.settings.set("remote_stt_base_url", upstream.url);
    app.services.settings.set("remote_stt_model", "whisper-large-v3");
    const res = await check(app, "remote");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: "remote", model: "whisper-large-v3" });
    expect(seen).toEqual([{ model: "whisper-large-v3", seconds: 1 }]);
    expect(app.services.settings.get("stt_engine")).not.toBe("remote");
  });

  test("a server that refuses the key, one that cannot be reached, and no server set each say why", async () => {
    using refusing = fakeSpeechServer(() =>
      Response.json({ error: { message: "Incorrect API key provided" } }, { status: 401 }),
    );
    const app = createTestApp();
    app.services.settings.set("remote_stt_model", "whisper-1");
    const unset = await check(app, "remote");
    expect(unset.status).toBe(503);
    expect((await errorOf(unset)).code).toBe("engine_unavailable");

    app.services.settings.set("remote_stt_base_url", refusing.url);
    app.services.settings.set("remote_stt_api_key", "sk-wrong");
    const refused = await check(app, "remote");
    expect(refused.status).toBe(502);
    expect((await errorOf(refused)).code).toBe("engine_unauthorized");

    // A port nothing listens on: refused at once (the retries back off a few hundred ms).
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const port = closed.port;
    await closed.stop(true);
    app.services.settings.set("remote_stt_base_url", `http://127.0.0.1:${port}/v1`);
    const unreachable = await check(app, "remote");
    expect(unreachable.status).toBe(502);
    const error = await errorOf(unreachable);
    expect(error.code).toBe("engine_unreachable");
    expect(error.message).toContain(`127.0.0.1:${port}`);
  });

  test("loads a local engine and runs it: sphinx answers, whisper without its model says how to get it", async () => {
    const app = createTestApp({ modelsDir: mkdtempSync(join(tmpdir(), "svc-engine-check-")) });
    const sphinx = await check(app, "sphinx");
    expect(sphinx.status).toBe(200);
    expect(await sphinx.json()).toMatchObject({ id: "sphinx" });
    const whisper = await check(app, "whisper");
    expect(whisper.status).toBe(503);
    const error = await errorOf(whisper);
    expect(error.code).toBe("model_unavailable");
    expect(error.message).toContain("base.en");
  });

  test("an engine that is not one is a 400 naming those that are", async () => {
    const res = await check(createTestApp(), "vosk");
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe("invalid_request");
    expect(error.message).toContain("whisper");
  });
});
