import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { type SettingDef, settingKeys, settingsCatalog } from "../../src/settings/catalog.ts";
import { createTestApp } from "../helpers/app.ts";

describe("settings catalog", () => {
  test.each(settingKeys)("the default of %s passes its own schema", (key) => {
    const def = settingsCatalog[key] as SettingDef;
    expect(v.safeParse(def.schema, def.default).success).toBe(true);
  });

  test("keys are snake_case and API keys are secret", () => {
    for (const key of settingKeys) expect(key).toMatch(/^[a-z][a-z0-9_]*$/);
    const secrets = settingKeys.filter((key) => (settingsCatalog[key] as SettingDef).secret);
    expect(secrets.sort()).toEqual(["llm_api_key", "remote_stt_api_key"]);
  });

  test("every secret is bound to the URL setting it is sent to", () => {
    const bindings = settingKeys
      .filter((key) => (settingsCatalog[key] as SettingDef).secret)
      .map((key) => [key, (settingsCatalog[key] as SettingDef).boundTo]);
    expect(bindings).toEqual([
      ["llm_api_key", "llm_base_url"],
      ["remote_stt_api_key", "remote_stt_base_url"],
    ]);
  });
});

describe("settings service", () => {
  test("get serves from memory and sees every write", () => {
    const { services, db } = createTestApp();
    const { settings } = services;
    expect(settings.get("stt_engine")).toBe("whisper");
    settings.set("stt_engine", "remote");
    expect(settings.get("stt_engine")).toBe("remote");
    // A write behind the service's back is not seen until the service next writes: the cache is real.
    db.run("UPDATE settings SET value = '\"sphinx\"' WHERE key = 'stt_engine'");
    expect(settings.get("stt_engine")).toBe("remote");
    settings.reset("language");
    settings.set("language", "fr");
    expect(settings.get("stt_engine")).toBe("sphinx");
  });

  test("a stored value that no longer passes its schema falls back to the default, logged", () => {
    const { services, db, logs } = createTestApp();
    db.run("INSERT INTO settings (key, value, updated_at) VALUES ('cleanup_mode', '\"fancy\"', 'x')");
    db.run("INSERT INTO settings (key, value, updated_at) VALUES ('max_audio_seconds', 'not json', 'x')");
    expect(services.settings.get("cleanup_mode")).toBe("basic");
    expect(services.settings.get("max_audio_seconds")).toBe(600);
    expect(logs.filter((line) => line.level === "warn").map((line) => line.key)).toEqual([
      "cleanup_mode",
      "max_audio_seconds",
    ]);
  });

  test("an explicit null is kept for a nullable setting", () => {
    const { services } = createTestApp();
    services.settings.set("history_retention_days", 30);
    services.settings.set("history_retention_days", null);
    expect(services.settings.get("history_retention_days")).toBeNull();
    expect(services.settings.view("history_retention_days").isDefault).toBe(false);
  });

  test("onChange hears each write and reset", () => {
    const { services } = createTestApp();
    const heard: string[] = [];
    services.settings.onChange((key) => heard.push(key));
    services.settings.set("language", "en");
    services.settings.reset("language");
    expect(heard).toEqual(["language", "language"]);
  });
});
