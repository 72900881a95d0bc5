import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServerEvent } from "../../src/events.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { ggmlLikeFile, presetFor, whisperModelFile } from "../helpers/ggml-fixture.ts";
import { type ModelMirror, startModelMirror } from "../helpers/model-mirror.ts";
import { until } from "../helpers/until.ts";

const small = whisperModelFile(1);
const large = whisperModelFile(2, 16);
const presets = [
  presetFor("base.en", small),
  presetFor("small.en", large),
  presetFor("tiny.en", small, { sha256: "0".repeat(64), file: "ggml-tiny.en.bin" }),
];

let dir: string;
let mirror: ModelMirror;
let t: TestApp;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-models-route-"));
  mirror = startModelMirror({
    "ggml-base.en.bin": small,
    "ggml-small.en.bin": large,
    "ggml-tiny.en.bin": small,
  });
  t = createTestApp({ modelsDir: join(dir, "models"), modelBaseUrl: mirror.url, modelPresets: presets });
});

afterEach(async () => {
  await t.models.stop();
  mirror.stop();
  rmSync(dir, { recursive: true, force: true });
});

const waitFor = <T>(find: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> =>
  until(find, (found): found is T => found !== undefined, { what, timeoutMs, everyMs: 5 });

const eventOf = (type: string, id: string) => () => t.events.find((e) => e.type === type && e.id === id);
const post = (path: string) => t.request(path, { method: "POST" });
const overview = async () => (await (await t.request("/api/models")).json()) as Record<string, unknown>;
type Entry = { id: string; installed: boolean; active: boolean; partialBytes: number; download: unknown };
const entry = async (id: string) => ((await overview()).models as Entry[]).find((m) => m.id === id);

describe("GET /api/models", () => {
  test("is per engine: ?engine= names one that downloads; an engine that downloads nothing is 400", async () => {
    expect(await (await t.request("/api/models?engine=whisper")).json()).toMatchObject({ engine: "whisper" });
    const sphinx = await t.request("/api/models?engine=sphinx");
    expect(sphinx.status).toBe(400);
    expect(((await sphinx.json()) as { error: { message: string } }).error.message).toContain("whisper");
    // With sphinx selected, the default is still the engine whose models are downloaded.
    t.services.settings.set("stt_engine", "sphinx");
    expect(await overview()).toMatchObject({ engine: "whisper", active: "base.en" });
    expect((await t.request("/api/models/base.en/pull?engine=remote", { method: "POST" })).status).toBe(400);
  });

  test("a fresh install has base.en active and nothing installed or downloading", async () => {
    const body = await overview();
    expect(body).toMatchObject({
      active: "base.en",
      activeInstalled: false,
      defaultModel: "base.en",
      downloads: [],
    });
    expect((body.models as Entry[]).every((m) => !m.installed && m.partialBytes === 0)).toBe(true);
  });

  test("lists presets with the active model from stt_model and the installed custom files", async () => {
    mkdirSync(join(dir, "models"));
    writeFileSync(join(dir, "models", "ggml-my-model.bin"), ggmlLikeFile(100));
    await t.json("/api/settings/stt_model", "PUT", { value: "small.en" });
    const body = await overview();
    expect(body).toMatchObject({ active: "small.en", activeInstalled: false, baseUrl: mirror.url });
    const models = body.models as Entry[];
    expect(models.map((m) => m.id)).toEqual(["base.en", "small.en", "tiny.en", "my-model"]);
    expect(models.find((m) => m.id === "small.en")).toMatchObject({
      active: true,
      installed: false,
      download: null,
    });
    expect(models.find((m) => m.id === "my-model")).toMatchObject({ installed: true, preset: false });
  });
});

describe("POST /api/models/:id/pull", () => {
  test("answers 202, publishes throttled progress, then models.installed", async () => {
    mirror.pace = { chunkBytes: 64 * 1024, delayMs: 25 };
    const res = await post("/api/models/small.en/pull");
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({
      status: "downloading",
      joined: false,
      download: { id: "small.en" },
    });
    const installed = await waitFor(eventOf("models.installed", "small.en"), "models.installed");
    expect(installed).toMatchObject({ file: "ggml-small.en.bin", sizeBytes: large.length });
    const progress = t.events.filter((e) => e.type === "models.progress");
    expect(progress.length).toBeGreaterThanOrEqual(2);
    const times = progress.map((e: ServerEvent) => Date.parse(e.time));
    for (let i = 1; i < times.length; i++)
      expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBeGreaterThanOrEqual(245);
    expect(progress[0]).toMatchObject({ id: "small.en", totalBytes: large.length });
    expect(t.events.indexOf(installed)).toBeGreaterThan(t.events.indexOf(progress.at(-1) as ServerEvent));
    expect(await entry("small.en")).toMatchObject({ installed: true, download: null, partialBytes: 0 });
  });

  test("shows a running download with its progress in GET /api/models", async () => {
    mirror.pace = { chunkBytes: 64 * 1024, delayMs: 30 };
    await post("/api/models/small.en/pull");
    await waitFor(eventOf("models.progress", "small.en"), "progress");
    const body = await overview();
    const downloads = body.downloads as { id: string; receivedBytes: number; percent: number }[];
    expect(downloads).toHaveLength(1);
    expect(downloads[0]?.receivedBytes).toBeGreaterThan(0);
    expect((await entry("small.en"))?.download).toMatchObject({ id: "small.en", totalBytes: large.length });
  });

  test("a second pull of the same model joins the running download", async () => {
    mirror.pace = { chunkBytes: 64 * 1024, delayMs: 10 };
    const first = await post("/api/models/small.en/pull");
    const second = await post("/api/models/small.en/pull");
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(await second.json()).toMatchObject({ status: "downloading", joined: true });
    await waitFor(eventOf("models.installed", "small.en"), "models.installed");
    expect(mirror.requests).toHaveLength(1);
    expect(t.events.filter((e) => e.type === "models.installed")).toHaveLength(1);
  });

  test("an installed model answers 200 without downloading again", async () => {
    await post("/api/models/base.en/pull");
    await waitFor(eventOf("models.installed", "base.en"), "models.installed");
    const again = await post("/api/models/base.en/pull");
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ status: "installed" });
    expect(mirror.requests).toHaveLength(1);
  });

  test("a checksum mismatch is published as models.failed and leaves no file", async () => {
    await post("/api/models/tiny.en/pull");
    const failed = await waitFor(eventOf("models.failed", "tiny.en"), "models.failed");
    expect(failed).toMatchObject({ code: "checksum_mismatch" });
    expect(readdirSync(join(dir, "models"))).toEqual([]);
  });

  test("a 404 from the mirror is published as models.failed; GET /api/models has the message", async () => {
    mirror.files.delete("ggml-base.en.bin");
    expect((await post("/api/models/base.en/pull")).status).toBe(202);
    const failed = await waitFor(eventOf("models.failed", "base.en"), "models.failed");
    expect(failed).toMatchObject({ code: "model_not_found_upstream" });
    expect(failed.message).toBeUndefined();
    const overview = (await (await t.request("/api/models")).json()) as {
      models: { id: string; lastFailure: { code: string; message: string } | null }[];
    };
    const entry = overview.models.find((model) => model.id === "base.en");
    expect(entry?.lastFailure?.code).toBe("model_not_found_upstream");
    expect(entry?.lastFailure?.message).toContain(`${mirror.url}/ggml-base.en.bin answered 404`);
  });

  test("an unknown model is 404 and an unsafe name is 400", async () => {
    const unknown = await post("/api/models/huge-v9/pull");
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain(
      "GET /api/models",
    );
    expect((await post("/api/models/..%2Fetc/pull")).status).toBe(400);
  });

  test("409 when another process holds the model's download lock", async () => {
    const other = Bun.spawn(["sleep", "30"]);
    try {
      mkdirSync(join(dir, "models"));
      writeFileSync(join(dir, "models", "ggml-base.en.bin.lock"), String(other.pid));
      const res = await post("/api/models/base.en/pull");
      expect(res.status).toBe(409);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("download_in_progress");
      expect(body.error.message).toContain(`by process ${other.pid}`);
      expect(mirror.requests).toHaveLength(0);
    } finally {
      other.kill();
    }
  });

  test("refused from an untrusted browser origin", async () => {
    const res = await t.request("/api/models/base.en/pull", {
      method: "POST",
      headers: { origin: "http://evil.com" },
    });
    expect(res.status).toBe(403);
    expect(mirror.requests).toHaveLength(0);
  });
});

describe("DELETE /api/models/:id", () => {
  async function install(id: string) {
    await post(`/api/models/${id}/pull`);
    await waitFor(eventOf("models.installed", id), "models.installed");
  }

  test("deletes an installed model and publishes models.deleted", async () => {
    await install("small.en");
    const res = await t.request("/api/models/small.en", { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(existsSync(join(dir, "models", "ggml-small.en.bin"))).toBe(false);
    expect(t.events.find((e) => e.type === "models.deleted")).toMatchObject({ id: "small.en" });
  });

  test("refuses the active model (base.en by default) with 409 unless force=true", async () => {
    await install("base.en");
    const refused = await t.request("/api/models/base.en", { method: "DELETE" });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("model_in_use");
    expect(existsSync(join(dir, "models", "ggml-base.en.bin"))).toBe(true);
    expect((await t.request("/api/models/base.en?force=true", { method: "DELETE" })).status).toBe(204);
    expect((await overview()).activeInstalled).toBe(false);
  });

  test("cancels a running download and removes its partial file", async () => {
    mirror.pace = { chunkBytes: 64 * 1024, delayMs: 30 };
    await post("/api/models/small.en/pull");
    await waitFor(eventOf("models.progress", "small.en"), "progress");
    expect((await t.request("/api/models/small.en", { method: "DELETE" })).status).toBe(204);
    expect(t.events.find((e) => e.type === "models.failed")).toMatchObject({ code: "download_cancelled" });
    expect(readdirSync(join(dir, "models"))).toEqual([]);
    expect((await overview()).downloads).toEqual([]);
  });

  test("a model that is not installed is 404", async () => {
    expect((await t.request("/api/models/base.en", { method: "DELETE" })).status).toBe(404);
  });
});
