import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeWav } from "../src/dictation/audio/index.ts";
import { eventTypes, type ServerEvent } from "../src/events.ts";
import { createTestApp, type TestApp } from "./helpers/app.ts";
import { presetFor, whisperModelFile } from "./helpers/ggml-fixture.ts";
import { type ModelMirror, startModelMirror } from "./helpers/model-mirror.ts";
import { fixturesDir } from "./helpers/plugins.ts";
import { startRegistry } from "./helpers/registry-server.ts";
import { goForward } from "./helpers/sphinx-testdata.ts";
import { until } from "./helpers/until.ts";

// Any page on any port of this machine may open /api/events (docs/SPEC.md §5 trusts localhost origins
// for upgrades), and it reads whatever the socket carries. So events carry ids, keys, names and
// figures, never content: this runs every event type through the real routes with recognisable
// content and fails when any of it, or anything that reads like prose, reaches an event.

// Spelled into every piece of content the scenario stores; never part of a key or a name.
const secret = "qjvcontent";
// Ids, keys, package names, file names, codes, timestamps: one token, no spaces.
const token = /^[A-Za-z0-9@._:/+-]{0,200}$/;

function strings(value: unknown, path: string, out: [string, string][]): [string, string][] {
  if (typeof value === "string") out.push([path, value]);
  else if (typeof value === "object" && value !== null)
    for (const [key, item] of Object.entries(value)) strings(item, `${path}.${key}`, out);
  return out;
}

let dir: string;
let mirror: ModelMirror;
let registry: Awaited<ReturnType<typeof startRegistry>>;
let t: TestApp;
let transcript = "";

async function waitFor(type: string, id: string): Promise<void> {
  const seen = () => t.events.some((event) => event.type === type && event.id === id);
  await until(seen, Boolean, { what: `${type} ${id}`, everyMs: 5 });
}

async function send(path: string, method: string, body?: unknown): Promise<Response> {
  const res = await t.json(path, method, body);
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-events-content-"));
  const model = whisperModelFile(1);
  mirror = startModelMirror({ "ggml-base.en.bin": model, "ggml-tiny.en.bin": model });
  registry = await startRegistry();
  await registry.publish("@fx/events-plugin", "1.0.0", ` [${secret} plugin text]`);
  t = createTestApp({
    modelsDir: join(dir, "models"),
    modelBaseUrl: mirror.url,
    modelPresets: [presetFor("base.en", model), presetFor("tiny.en", model, { sha256: "0".repeat(64) })],
    npmRegistry: registry.url,
    pluginsDir: join(dir, "plugins"),
  });
  await t.plugins.start();

  // Settings, with values that must not travel: a URL, a client preference, an API key.
  await send("/api/settings/llm_base_url", "PUT", { value: `http://${secret}.example/v1` });
  await send("/api/settings/llm_api_key", "PUT", { value: `sk-${secret}` });
  await send("/api/settings/console.theme", "PUT", { value: `${secret} preference` });
  await send("/api/settings/console.theme", "DELETE");
  // Dictionary, vocabulary, formats and a whole import.
  await send("/api/dictionary", "POST", { key: `${secret} key`, value: `${secret} value` });
  await send("/api/vocabulary", "POST", { term: `${secret}term`, notes: `${secret} notes` });
  await send("/api/formats", "POST", { label: `${secret} format`, appPattern: secret, instructions: secret });
  await send("/api/import", "POST", {
    format: "svc-export",
    version: 1,
    dictionary: [{ key: `${secret} imported`, value: `${secret} imported value` }],
    settings: { language: "en", "console.theme": secret },
  });
  // A real dictation, then history deleted, purged by retention and cleared.
  t.services.settings.set("stt_engine", "sphinx");
  const spoken = await t.request("/api/transcribe", {
    method: "POST",
    headers: { "content-type": "audio/wav" },
    body: encodeWav(goForward()),
  });
  const result = (await spoken.json()) as { text: string; historyId: number };
  transcript = result.text;
  // A plugin that aborts a dictation with a reason: the bus hears the stage and the plugin only.
  cpSync(join(fixturesDir, "fs-probe"), join(dir, "plugins", "fs-probe"), { recursive: true });
  t.services.settings.set("plugins", [["@fs/probe", { abort: true }]]);
  await t.plugins.reload();
  const aborted = await t.request("/api/transcribe", {
    method: "POST",
    headers: { "content-type": "audio/wav", "x-app-context": JSON.stringify({ app: secret }) },
    body: encodeWav(goForward()),
  });
  expect(((await aborted.json()) as { disposition: string }).disposition).toBe("aborted");
  t.services.settings.set("plugins", []);
  await t.plugins.reload();
  await send(`/api/history/${result.historyId}`, "DELETE");
  const entry = (text: string) => ({
    rawText: text,
    finalText: text,
    engine: "sphinx",
    audioDurationMs: 1000,
    processingMs: 10,
  });
  t.services.history.record(entry(`${secret} old`));
  t.db.run("UPDATE history SET created_at = '2000-01-01T00:00:00.000Z'");
  t.services.settings.set("history_retention_days", 1);
  t.services.history.purgeExpired();
  t.services.history.record(entry(`${secret} new`));
  await send("/api/history", "DELETE");
  // Models: a download, a failed one, a deletion.
  await send("/api/models/base.en/pull", "POST");
  await waitFor("models.installed", "base.en");
  await send("/api/models/tiny.en/pull", "POST");
  await waitFor("models.failed", "tiny.en");
  await send("/api/models/base.en?force=true", "DELETE");
  // Plugins: installed, loaded, removed.
  await send("/api/plugins/install", "POST", { npmName: "@fx/events-plugin", enable: true });
  await send("/api/plugins/uninstall", "POST", { specifier: "@fx/events-plugin", purge: true });
}, 60_000);

afterAll(async () => {
  await t.models.stop();
  mirror.stop();
  registry.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("events on /api/events", () => {
  test("every event type was published by the scenario (a new type must be added to it)", () => {
    const seen = new Set(t.events.map((event: ServerEvent) => event.type));
    expect(eventTypes.filter((type) => !seen.has(type))).toEqual([]);
  });

  test("carry no transcript text, setting values or user content", () => {
    expect(transcript.length).toBeGreaterThan(5);
    const all = JSON.stringify(t.events);
    expect(all).not.toContain(transcript);
    expect(all).not.toContain(secret);
  });

  test("carry only ids, keys, names, codes and figures: every string is one token", () => {
    const offending = t.events.flatMap((event) =>
      strings(event, event.type, []).filter(([, value]) => !token.test(value)),
    );
    expect(offending).toEqual([]);
  });
});
