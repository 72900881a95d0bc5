import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WHISPER_LANGUAGES } from "../../src/dictation/engines/languages.ts";
import { answeringModels, describeSvc, requestedModel } from "../../src/wyoming/info.ts";
import { createTestApp } from "../helpers/app.ts";
import { syntheticModel } from "../helpers/synthetic-model.ts";

// What `describe` tells Home Assistant, over a real models folder: Home Assistant offers the
// languages of the installed models and names the program after `asr[0].name`.

function setup() {
  const dir = mkdtempSync(join(tmpdir(), "svc-wyoming-info-"));
  mkdirSync(join(dir, "models"));
  const app = createTestApp({ modelsDir: join(dir, "models") });
  const sources = {
    version: "1.2.3",
    url: "http://127.0.0.1:4649",
    settings: app.services.settings,
    stores: { whisper: app.models.store },
  };
  const install = (file: string, preset: "micro" | "micro-multilingual") =>
    copyFileSync(syntheticModel(preset), join(dir, "models", file));
  return { app, sources, install };
}

describe("describeSvc", () => {
  test("lists the installed whisper models, the active one first, with the languages they speak", () => {
    const { app, sources, install } = setup();
    install("ggml-tiny.en.bin", "micro");
    install("ggml-base.en.bin", "micro");
    install("ggml-my-model.bin", "micro-multilingual");
    app.services.settings.set("stt_model", "base.en");
    const models = answeringModels(sources);
    expect(models.map((model) => model.name)).toEqual(["base.en", "my-model", "tiny.en"]);
    expect(models[0]).toMatchObject({ installed: true, languages: ["en"] });
    expect(models[0]?.description).toStartWith("Active model.");
    // An imported model's languages come from its header: 51865 tokens is multilingual.
    expect(models[1]?.languages).toHaveLength(WHISPER_LANGUAGES.size);
    expect(models[1]?.languages).toContain("de");
  });

  test("names the active model not downloaded yet, as not installed", () => {
    const { sources } = setup();
    expect(answeringModels(sources)).toEqual([
      expect.objectContaining({ name: "base.en", installed: false, languages: ["en"] }),
    ]);
  });

  test("the sphinx and remote engines answer with their own model, then the installed whisper models", () => {
    const { app, sources, install } = setup();
    install("ggml-base.en.bin", "micro");
    app.services.settings.set("stt_engine", "sphinx");
    expect(answeringModels(sources).map((model) => [model.name, model.languages])).toEqual([
      ["en-us", ["en"]],
      ["base.en", ["en"]],
    ]);
    app.services.settings.set("stt_engine", "remote");
    app.services.settings.set("remote_stt_base_url", "https://api.example.com/v1");
    app.services.settings.set("remote_stt_model", "whisper-large-v3");
    const [remote] = answeringModels(sources);
    expect(remote).toMatchObject({
      name: "whisper-large-v3",
      installed: true,
      attribution: { url: "https://api.example.com" },
    });
  });

  test("holds one asr program named svc, streaming, and the empty lists of the other services", () => {
    const { sources } = setup();
    const info = describeSvc(sources);
    expect(Object.keys(info).sort()).toEqual(["asr", "handle", "intent", "mic", "snd", "tts", "wake"]);
    expect(info.asr).toEqual([
      expect.objectContaining({
        name: "svc",
        version: "1.2.3",
        installed: true,
        attribution: { name: "svc", url: "http://127.0.0.1:4649" },
        supports_transcript_streaming: true,
        requires_external_vad: true,
      }),
    ]);
  });
});

describe("requestedModel", () => {
  test("a transcribe may name an installed whisper model, whatever the active engine; anything else leaves the settings in charge", () => {
    const { app, sources, install } = setup();
    install("ggml-tiny.en.bin", "micro");
    expect(requestedModel(sources, "tiny.en")).toEqual({ engine: "whisper", model: "tiny.en" });
    expect(requestedModel(sources, "small.en")).toBeUndefined();
    expect(requestedModel(sources, "../../etc/passwd")).toBeUndefined();
    expect(requestedModel(sources, undefined)).toBeUndefined();
    app.services.settings.set("stt_engine", "sphinx");
    expect(requestedModel(sources, "tiny.en")).toEqual({ engine: "whisper", model: "tiny.en" });
  });

  test("a language the active model does not speak goes to the first installed model that does", () => {
    const { app, sources, install } = setup();
    install("ggml-base.en.bin", "micro");
    install("ggml-my-model.bin", "micro-multilingual");
    app.services.settings.set("stt_model", "base.en");
    expect(requestedModel(sources, undefined, "de")).toEqual({ engine: "whisper", model: "my-model" });
    expect(requestedModel(sources, undefined, "de-DE")).toEqual({ engine: "whisper", model: "my-model" });
    expect(requestedModel(sources, undefined, "en")).toBeUndefined();
    expect(requestedModel(sources, undefined, "en-US")).toBeUndefined();
    expect(requestedModel(sources, undefined, "auto")).toBeUndefined();
    // A model named explicitly wins, even one that cannot answer the language (it says so).
    expect(requestedModel(sources, "base.en", "de")).toEqual({ engine: "whisper", model: "base.en" });
    // No installed model speaks it: the active one answers, and refuses with a clear error.
    expect(requestedModel(sources, undefined, "tlh")).toBeUndefined();
    app.services.settings.set("stt_model", "my-model");
    expect(requestedModel(sources, undefined, "de")).toBeUndefined();
    // With sphinx (English only) active, German goes to the installed whisper model that speaks it.
    app.services.settings.set("stt_engine", "sphinx");
    app.services.settings.set("stt_model", "base.en");
    expect(requestedModel(sources, undefined, "de")).toEqual({ engine: "whisper", model: "my-model" });
    expect(requestedModel(sources, undefined, "en")).toBeUndefined();
  });
});
