import { describe, expect, test } from "bun:test";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { settingKeys, settingsCatalog } from "../../src/settings/catalog.ts";
import { createTestApp } from "../helpers/app.ts";
import type { ErrorBody } from "../helpers/errors.ts";
import { fakeSpeechServer } from "../helpers/speech-server.ts";
import { goForward } from "../helpers/sphinx-testdata.ts";

const put = (t: ReturnType<typeof createTestApp>, key: string, value: unknown) =>
  t.json(`/api/settings/${key}`, "PUT", { value });

describe("GET /api/settings", () => {
  test("lists every known setting with its default on a fresh database", async () => {
    const { request } = createTestApp();
    const res = await request("/api/settings");
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual([...settingKeys].sort());
    expect(body.language).toBe("auto");
    expect(body.plugins).toEqual([]);
    expect(body.history_paused).toBe(false);
    expect(body.llm_api_key).toEqual({ set: false });
  });

  test("includes stored client preferences and masks stored secrets", async () => {
    const t = createTestApp();
    await put(t, "console.theme", "dark");
    await put(t, "llm_api_key", "sk-very-secret");
    const text = await (await t.request("/api/settings")).text();
    expect(text).not.toContain("sk-very-secret");
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(body["console.theme"]).toBe("dark");
    expect(body.llm_api_key).toEqual({ set: true });
  });
});

describe("GET /api/settings/schema", () => {
  test("the language choices are the selected engine's: whisper's multilingual list, sphinx's English", async () => {
    const t = createTestApp();
    const choices = async () => {
      const body = (await (await t.request("/api/settings/schema")).json()) as {
        items: { key: string; schema: { examples?: string[] } }[];
      };
      return body.items.find((item) => item.key === "language")?.schema.examples ?? [];
    };
    t.services.settings.set("stt_model", "base");
    expect((await choices()).length).toBeGreaterThan(90);
    expect(await choices()).toContain("de");
    t.services.settings.set("stt_engine", "sphinx");
    expect(await choices()).toEqual(["auto", "en"]);
  });

  test("describes every known key with a default, a description and a JSON schema", async () => {
    const { request } = createTestApp();
    const body = (await (await request("/api/settings/schema")).json()) as {
      items: { key: string; description: string; default: unknown; secret: boolean; schema: object }[];
    };
    expect(body.items.map((item) => item.key)).toEqual([...settingKeys]);
    const stt = body.items.find((item) => item.key === "stt_engine");
    expect(stt?.default).toBe("whisper");
    expect(stt).toMatchObject({ label: "Speech engine" });
    expect(body.items.find((item) => item.key === "llm_timeout_ms")).toMatchObject({
      label: "LLM timeout",
      unit: "ms",
    });
    expect(new Set(body.items.map((item) => (item as { label?: string }).label)).size).toBe(
      settingKeys.length,
    );
    expect(stt?.schema).toMatchObject({ enum: ["whisper", "sphinx", "remote"] });
    expect(body.items.find((item) => item.key === "remote_stt_api_key")?.secret).toBe(true);
    for (const item of body.items) expect(item.description.length).toBeGreaterThan(10);
  });

  test("files every key under a group it lists, an engine's own settings under the engine", async () => {
    const { request } = createTestApp();
    const body = (await (await request("/api/settings/schema")).json()) as {
      groups: { id: string; title: string }[];
      items: { key: string; group: string; advanced: boolean }[];
    };
    const groupOf = (key: string) => body.items.find((item) => item.key === key)?.group;
    expect(body.groups.map((group) => group.id)).toEqual([
      "speech",
      "whisper",
      "remote",
      "cleanup",
      "llm",
      "history",
      "live",
      "wyoming",
      "limits",
      "plugins",
    ]);
    expect(body.groups.find((group) => group.id === "remote")?.title).toBe("Remote server");
    const listed = new Set(body.groups.map((group) => group.id));
    expect(body.items.filter((item) => !listed.has(item.group))).toEqual([]);
    expect([groupOf("stt_engine"), groupOf("stt_model"), groupOf("remote_stt_concurrency")]).toEqual([
      "speech",
      "whisper",
      "remote",
    ]);
    // The live dictation and Wyoming limits have groups of their own.
    for (const item of body.items) {
      if (item.key.startsWith("dictate_")) expect(item.group).toBe("live");
      if (item.key.startsWith("wyoming_")) expect(item.group).toBe("wyoming");
    }
    expect(body.items.find((item) => item.key === "wyoming_max_speed")?.advanced).toBe(true);
    // The caps that protect the server are the operator's (environment variables), not settings.
    expect(body.items.find((item) => item.key === "wyoming_max_header_bytes")).toBeUndefined();
    expect(body.items.find((item) => item.key === "dictate_max_sessions")).toBeUndefined();
    expect(body.items.find((item) => item.key === "language")?.advanced).toBe(false);
  });
});

describe("PATCH /api/settings", () => {
  const patch = (t: ReturnType<typeof createTestApp>, body: unknown) =>
    t.json("/api/settings", "PATCH", body);

  test("stores several values and resets others in one request, one event each", async () => {
    const t = createTestApp();
    await put(t, "llm_model", "llama3");
    t.events.length = 0;
    const res = await patch(t, { values: { llm_timeout_ms: 6000, keep_alive: "10m" }, reset: ["llm_model"] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { items: { key: string; value: unknown; isDefault: boolean }[] };
    expect(body.items.map(({ key, value, isDefault }) => [key, value, isDefault])).toEqual([
      ["llm_timeout_ms", 6000, false],
      ["keep_alive", "10m", false],
      ["llm_model", null, true],
    ]);
    expect(t.services.settings.get("keep_alive")).toBe("10m");
    expect(t.events.map((event) => [event.key, event.isDefault])).toEqual([
      ["llm_timeout_ms", false],
      ["keep_alive", false],
      ["llm_model", true],
    ]);
  });

  test("stores nothing when one value is refused, and names every refused one by its label", async () => {
    const t = createTestApp();
    const res = await patch(t, {
      values: { llm_timeout_ms: 5, keep_alive: "10m", history_retention_days: 0 },
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("invalid_setting");
    expect(body.error.message).toBe(
      "Nothing was saved. LLM timeout must be at least 500 ms. History retention must be at least 1 day.",
    );
    const refused = (body.error.details as { settings: { key: string; message: string }[] }).settings;
    expect(refused.map(({ key, message }) => [key, message])).toEqual([
      ["llm_timeout_ms", "LLM timeout must be at least 500 ms."],
      ["history_retention_days", "History retention must be at least 1 day."],
    ]);
    expect(t.services.settings.get("keep_alive")).toBe("5m");
    expect(t.events).toHaveLength(0);
  });

  test("a base URL moved to another origin in a batch removes its key and lists it", async () => {
    const t = createTestApp();
    await patch(t, { values: { llm_base_url: "http://127.0.0.1:11434/v1", llm_api_key: "sk-local" } });
    expect(t.services.settings.get("llm_api_key")).toBe("sk-local");
    const res = await patch(t, { values: { llm_base_url: "http://other.example/v1", llm_model: "m" } });
    expect(await res.json()).toMatchObject({ cleared: ["llm_api_key"] });
    expect(t.services.settings.get("llm_api_key")).toBeNull();
  });

  test("a key set and reset at once, or a retired one, is refused before anything is stored", async () => {
    const t = createTestApp();
    const both = await patch(t, { values: { llm_model: "m" }, reset: ["llm_model"] });
    expect(((await both.json()) as ErrorBody).error.code).toBe("invalid_setting");
    const retired = await patch(t, { values: { llm_model: "m", dictate_max_sessions: 4 } });
    expect(((await retired.json()) as ErrorBody).error.code).toBe("invalid_setting_key");
    expect(t.services.settings.get("llm_model")).toBeNull();
    expect(t.events).toHaveLength(0);
  });
});

describe("GET /api/settings/:key", () => {
  test("returns a known setting's default with isDefault", async () => {
    const { request } = createTestApp();
    const res = await request("/api/settings/cleanup_mode");
    expect(await res.json()).toEqual({
      key: "cleanup_mode",
      value: "basic",
      isDefault: true,
      updatedAt: null,
      known: true,
      secret: false,
    });
  });

  test("404 for a client preference that was never stored", async () => {
    const { request } = createTestApp();
    const res = await request("/api/settings/console.theme");
    expect(res.status).toBe(404);
    expect(((await res.json()) as ErrorBody).error.code).toBe("not_found");
  });

  test("400 for a key with characters outside the allowed set", async () => {
    const { request } = createTestApp();
    const res = await request("/api/settings/Bad%20Key");
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error.code).toBe("invalid_setting_key");
  });
});

describe("PUT /api/settings/:key", () => {
  test("a setting that became an environment variable is refused 400, naming the variable", async () => {
    const t = createTestApp();
    const res = await put(t, "dictate_max_sessions", 64);
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("invalid_setting_key");
    expect(body.error.message).toContain("SVC_DICTATE_MAX_SESSIONS");
    expect((await t.request("/api/settings/dictate_max_sessions", { method: "DELETE" })).status).toBe(400);
    // An older backup that holds one imports the rest and leaves it out.
    const imported = await t.json("/api/import", "POST", {
      format: "svc-export",
      version: 1,
      settings: { dictate_max_sessions: 64, language: "de" },
    });
    expect(imported.status).toBe(200);
    expect(t.services.settings.get("language")).toBe("de");
    expect(Object.keys(t.services.settings.list())).not.toContain("dictate_max_sessions");
  });

  test("stores a valid value, returns it and publishes settings.changed", async () => {
    const t = createTestApp();
    const res = await put(t, "language", " DE ");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { value: string; isDefault: boolean; updatedAt: string };
    expect(body.value).toBe("de");
    expect(body.isDefault).toBe(false);
    expect(body.updatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
    expect(t.services.settings.get("language")).toBe("de");
    expect(t.events).toEqual([
      { type: "settings.changed", key: "language", isDefault: false, time: expect.any(String) },
    ]);
  });

  test("accepts the plugins setting in both entry forms", async () => {
    const t = createTestApp();
    const value = ["@svc/profanity-filter", ["@acme/other", { preserveCase: false }]];
    const res = await put(t, "plugins", value);
    expect(res.status).toBe(200);
    expect(t.services.settings.get("plugins") as unknown).toEqual(value);
  });

  test("a language with a region is stored lower-case with a hyphen", async () => {
    const t = createTestApp();
    expect((await put(t, "language", "pt_BR")).status).toBe(200);
    expect(t.services.settings.get("language")).toBe("pt-br");
  });

  test("a pair without options, or with null, stores empty options (SPEC: missing options are {})", async () => {
    const t = createTestApp();
    const res = await put(t, "plugins", [["@acme/a"], ["@acme/b", null]]);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { value: unknown }).value).toEqual([
      ["@acme/a", {}],
      ["@acme/b", {}],
    ]);
    expect(t.services.settings.get("plugins") as unknown).toEqual([
      ["@acme/a", {}],
      ["@acme/b", {}],
    ]);
  });

  test.each([
    ["plugins", [["@svc/x", []]]],
    ["plugins", [["@svc/x", {}, "extra"]]],
    ["plugins", [""]],
    ["plugins", "@svc/x"],
    ["stt_engine", "vosk"],
    ["language", "english"],
    ["history_paused", "true"],
    ["history_retention_days", 0],
    ["history_retention_days", 2.5],
    ["llm_base_url", "ftp://example.com"],
    ["llm_timeout_ms", null],
    ["stt_model", "../../etc/passwd"],
    ["stt_model", "base.en.bin"],
    ["stt_model", ""],
    ["stt_model", "x".repeat(101)],
  ])("400 invalid_setting for %s = %j, a sentence that begins with its label", async (key, value) => {
    const t = createTestApp();
    const res = await put(t, key, value);
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("invalid_setting");
    const { label } = settingsCatalog[key as keyof typeof settingsCatalog];
    expect(body.error.message).toStartWith(label);
    expect(body.error.message).not.toContain(key);
    expect(body.error.message).toEndWith(".");
    expect(body.error.details?.key).toBe(key);
    expect(body.error.details?.accepted).toBe(
      settingsCatalog[key as keyof typeof settingsCatalog].description,
    );
    expect(t.events).toHaveLength(0);
  });

  test.each([
    ["llm_timeout_ms", 5, "LLM timeout must be at least 500 ms."],
    ["history_retention_days", 0, "History retention must be at least 1 day."],
    ["language", "english", 'Language must be "auto" or an ISO 639 code such as "en" or "pt-br".'],
    ["llm_model", "  ", "LLM model must not be empty (send null for none)."],
    ["filler_words", ["um", ""], "Filler words must not hold an empty word (entry 2)."],
    ["stt_engine", "vosk", 'Speech engine must be one of "whisper", "sphinx", "remote".'],
  ])("%s = %j is refused in a plain sentence with its unit", async (key, value, message) => {
    const body = (await (await put(createTestApp(), key, value)).json()) as ErrorBody;
    expect(body.error.message).toBe(message);
  });

  test("stores an opaque client preference of any JSON type", async () => {
    const t = createTestApp();
    const value = { layout: ["a", 1, null], nested: { deep: true } };
    expect((await put(t, "console:layout", value)).status).toBe(200);
    const res = await t.request("/api/settings/console:layout");
    expect(await res.json()).toMatchObject({ key: "console:layout", value, known: false });
  });

  test("413 for a client preference over 16 KiB", async () => {
    const t = createTestApp();
    const res = await put(t, "console.blob", "x".repeat(17 * 1024));
    expect(res.status).toBe(413);
  });

  test("413 once 200 client preferences are stored", async () => {
    const t = createTestApp();
    for (let i = 0; i < 200; i++) t.services.settings.set(`pref.${i}`, i);
    const res = await put(t, "pref.one-more", 1);
    expect(res.status).toBe(413);
    expect(((await res.json()) as ErrorBody).error.code).toBe("too_many_settings");
    expect((await put(t, "pref.7", 8)).status).toBe(200);
  });

  test.each([
    ["a body without value", "{}"],
    ["malformed JSON", "{value:"],
  ])("400 for %s", async (_, body) => {
    const t = createTestApp();
    const res = await t.request("/api/settings/language", {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(res.status).toBe(400);
  });

  test.each([
    ["text/plain"],
    ["text/plain;charset=UTF-8"],
    ["application/x-www-form-urlencoded"],
    [undefined],
  ])("415 for a JSON body declared as %p, and the setting is unchanged", async (type) => {
    const t = createTestApp();
    const res = await t.request("/api/settings/llm_base_url", {
      method: "PUT",
      headers: type === undefined ? {} : { "content-type": type },
      body: JSON.stringify({ value: "http://attacker.example/v1" }),
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as ErrorBody).error.code).toBe("unsupported_media_type");
    expect(t.services.settings.view("llm_base_url").isDefault).toBe(true);
  });

  test("400 for the reserved key schema", async () => {
    const t = createTestApp();
    const res = await put(t, "schema", 1);
    expect(((await res.json()) as ErrorBody).error.code).toBe("invalid_setting_key");
  });

  test("never echoes a secret: not in the response, the event, nor a later read", async () => {
    const t = createTestApp();
    const res = await put(t, "remote_stt_api_key", "gsk-secret-value");
    const text = await res.text();
    expect(text).not.toContain("gsk-secret-value");
    expect(JSON.parse(text)).toMatchObject({ value: { set: true }, secret: true });
    expect(JSON.stringify(t.events)).not.toContain("gsk-secret-value");
    expect(await (await t.request("/api/settings/remote_stt_api_key")).text()).not.toContain("gsk");
    expect(t.services.settings.get("remote_stt_api_key")).toBe("gsk-secret-value");
  });

  test.each([[987654321], ["x".repeat(5000)], [["sk-in-array"]]])(
    "an invalid secret is refused without quoting it back",
    async (value) => {
      const t = createTestApp();
      const res = await put(t, "llm_api_key", value);
      expect(res.status).toBe(400);
      const text = await res.text();
      expect(text).not.toContain("987654321");
      expect(text).not.toContain("xxxxxxxx");
      expect(text).not.toContain("sk-in-array");
    },
  );

  test("putting back the masked read of a secret is refused, not stored", async () => {
    const t = createTestApp();
    await put(t, "llm_api_key", "sk-1");
    expect((await put(t, "llm_api_key", { set: true })).status).toBe(400);
    expect(t.services.settings.get("llm_api_key")).toBe("sk-1");
  });
});

describe("DELETE /api/settings/:key", () => {
  test("resets a known setting to its default and publishes the change", async () => {
    const t = createTestApp();
    await put(t, "cleanup_mode", "llm");
    const res = await t.request("/api/settings/cleanup_mode", { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(t.services.settings.get("cleanup_mode")).toBe("basic");
    expect(t.events.at(-1)).toMatchObject({ type: "settings.changed", key: "cleanup_mode", isDefault: true });
  });

  test("resetting a setting that is already at its default is a quiet 204", async () => {
    const t = createTestApp();
    expect((await t.request("/api/settings/language", { method: "DELETE" })).status).toBe(204);
    expect(t.events).toHaveLength(0);
  });

  test("deletes a client preference, then 404s", async () => {
    const t = createTestApp();
    await put(t, "console.theme", "dark");
    expect((await t.request("/api/settings/console.theme", { method: "DELETE" })).status).toBe(204);
    expect(t.events.at(-1)).toMatchObject({ type: "settings.deleted", key: "console.theme" });
    expect((await t.request("/api/settings/console.theme", { method: "DELETE" })).status).toBe(404);
  });
});

describe("API keys bound to the origin of their base URL", () => {
  const eventsFor = (t: ReturnType<typeof createTestApp>, key: string) =>
    t.events.filter((event) => event.type === "settings.changed" && event.key === key);

  test("moving llm_base_url to another origin removes llm_api_key, and the answer says so", async () => {
    const t = createTestApp();
    await put(t, "llm_base_url", "http://127.0.0.1:11434/v1");
    await put(t, "llm_api_key", "sk-for-ollama");
    const res = await put(t, "llm_base_url", "http://attacker.example/v1");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ key: "llm_base_url", cleared: ["llm_api_key"] });
    expect(t.services.settings.get("llm_api_key")).toBeNull();
    expect(await (await t.request("/api/settings/llm_api_key")).json()).toMatchObject({
      value: { set: false },
      isDefault: true,
    });
    expect(eventsFor(t, "llm_api_key").at(-1)?.isDefault).toBe(true);
  });

  test("the same origin (another path, a spelling of the same host and port) keeps the key", async () => {
    const t = createTestApp();
    await put(t, "remote_stt_base_url", "https://api.groq.com/openai/v1");
    await put(t, "remote_stt_api_key", "gsk-kept");
    for (const url of ["https://api.groq.com/openai/v2", "HTTPS://API.GROQ.COM:443/other"]) {
      const body = (await (await put(t, "remote_stt_base_url", url)).json()) as Record<string, unknown>;
      expect(body.cleared).toBeUndefined();
    }
    expect(t.services.settings.get("remote_stt_api_key")).toBe("gsk-kept");
  });

  test("another scheme or port is another origin", async () => {
    const t = createTestApp();
    for (const next of ["http://api.example.com/v1", "https://api.example.com:8443/v1"]) {
      await put(t, "remote_stt_base_url", "https://api.example.com/v1");
      await put(t, "remote_stt_api_key", "sk-x");
      const body = (await (await put(t, "remote_stt_base_url", next)).json()) as Record<string, unknown>;
      expect({ next, cleared: body.cleared }).toEqual({ next, cleared: ["remote_stt_api_key"] });
    }
  });

  test("a key stored before any base URL is removed when one is set: it was entered for none", async () => {
    const t = createTestApp();
    await put(t, "llm_api_key", "sk-early");
    const body = (await (await put(t, "llm_base_url", "http://attacker.example/v1")).json()) as {
      cleared?: string[];
    };
    expect(body.cleared).toEqual(["llm_api_key"]);
    expect(t.services.settings.get("llm_api_key")).toBeNull();
  });

  test("resetting the base URL removes its key; the other key stays", async () => {
    const t = createTestApp();
    await put(t, "llm_base_url", "http://127.0.0.1:11434/v1");
    await put(t, "llm_api_key", "sk-llm");
    await put(t, "remote_stt_base_url", "https://api.openai.com/v1");
    await put(t, "remote_stt_api_key", "sk-stt");
    expect((await t.request("/api/settings/llm_base_url", { method: "DELETE" })).status).toBe(204);
    expect(t.services.settings.get("llm_api_key")).toBeNull();
    expect(t.services.settings.get("remote_stt_api_key")).toBe("sk-stt");
    expect(eventsFor(t, "llm_api_key").at(-1)?.isDefault).toBe(true);
  });

  test("an import that moves a base URL removes its key and lists it", async () => {
    const t = createTestApp();
    await put(t, "remote_stt_base_url", "https://api.openai.com/v1");
    await put(t, "remote_stt_api_key", "sk-stt");
    const res = await t.json("/api/import", "POST", {
      format: "svc-export",
      version: 1,
      settings: { remote_stt_base_url: "http://attacker.example/v1" },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { settings: { cleared: string[] } }).settings.cleared).toEqual([
      "remote_stt_api_key",
    ]);
    expect(t.services.settings.get("remote_stt_api_key")).toBeNull();
    expect(eventsFor(t, "remote_stt_api_key").at(-1)?.isDefault).toBe(true);
  });

  test("a server the base URL is moved to never receives the old key", async () => {
    const seen: (string | null)[] = [];
    using attacker = fakeSpeechServer((request) => {
      seen.push(request.headers.get("authorization"));
      return "rm -rf ~ # injected";
    });
    const t = createTestApp();
    await put(t, "stt_engine", "remote");
    await put(t, "remote_stt_model", "whisper-1");
    await put(t, "remote_stt_base_url", "https://api.openai.com/v1");
    await put(t, "remote_stt_api_key", "sk-user-secret");
    await put(t, "remote_stt_base_url", attacker.url);
    const res = await t.request("/api/transcribe", {
      method: "POST",
      headers: { "content-type": "audio/wav" },
      body: encodeWav(goForward()),
    });
    expect(await res.json()).toMatchObject({ engine: "remote" });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((header) => header !== null)).toEqual([]);
  });
});
