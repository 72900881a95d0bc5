import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { createKeepAlive, keepAliveMs, keepAliveSchema } from "../../src/dictation/keep-alive.ts";
import { createTestApp } from "../helpers/app.ts";
import { goForward } from "../helpers/sphinx-testdata.ts";
import { syntheticModel } from "../helpers/synthetic-model.ts";
import { until } from "../helpers/until.ts";

describe("keep_alive values, as Ollama reads them", () => {
  test.each([
    ["5m", 300_000],
    ["30s", 30_000],
    ["1h30m", 5_400_000],
    ["1.5h", 5_400_000],
    ["250ms", 250],
    ["90", 90_000],
    [90, 90_000],
    [0, 0],
    ["0", 0],
    [-1, Number.POSITIVE_INFINITY],
    ["-1", Number.POSITIVE_INFINITY],
    ["-5m", Number.POSITIVE_INFINITY],
  ])("%p is %p ms", (value, ms) => {
    expect(v.is(keepAliveSchema, value)).toBe(true);
    expect(keepAliveMs(value)).toBe(ms);
  });

  test.each(["", "5x", "five minutes", "m5", "1h 30m", Number.NaN])("%p is refused", (value) => {
    expect(v.is(keepAliveSchema, value)).toBe(false);
  });
});

describe("createKeepAlive", () => {
  test("gives back once the time passes with no use, and looks again while something still runs", async () => {
    const answers = [false, true];
    let calls = 0;
    const keepAlive = createKeepAlive({
      delayMs: () => 5,
      release: async () => answers[calls++] ?? true,
    });
    keepAlive.used();
    await until(() => calls === 2, Boolean, { timeoutMs: 20_000 });
    keepAlive.close();
  });

  test("each use starts the countdown again; -1 never gives back", async () => {
    let delay = 50;
    let released = 0;
    const keepAlive = createKeepAlive({ delayMs: () => delay, release: async () => ++released > 0 });
    keepAlive.used();
    await Bun.sleep(20);
    keepAlive.used();
    await Bun.sleep(20);
    expect(released).toBe(0);
    await until(() => released === 1, Boolean, { timeoutMs: 20_000 });
    delay = Number.POSITIVE_INFINITY;
    keepAlive.used();
    await Bun.sleep(80);
    expect(released).toBe(1);
    keepAlive.close();
  });
});

describe("keep_alive in the dictation path", () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-keep-alive-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("with 0, the model and detector are given back after a dictation and the next loads them again", async () => {
    const t = createTestApp({ modelsDir: join(dir, "models") });
    mkdirSync(join(dir, "models"), { recursive: true });
    copyFileSync(syntheticModel("micro"), join(dir, "models", "micro.bin"));
    const lines = (msg: string) => t.logs.filter((line) => line.msg === msg);
    const unloaded = () => lines("speech engines unloaded after keep_alive").length;
    expect((await t.json("/api/settings/keep_alive", "PUT", { value: 0 })).status).toBe(200);
    // Choosing a model loads it at once; with keep_alive 0 it is given back as soon as it is ready.
    expect((await t.json("/api/settings/stt_model", "PUT", { value: "micro" })).status).toBe(200);
    await until(() => unloaded() === 1, Boolean, { timeoutMs: 20_000 });
    const wav = encodeWav(goForward());
    const dictate = () =>
      t.request("/api/transcribe", { method: "POST", headers: { "content-type": "audio/wav" }, body: wav });

    expect((await dictate()).status).toBe(200);
    await until(() => unloaded() === 2, Boolean, { timeoutMs: 20_000 });
    await until(() => t.dictation.vad.kind === null, Boolean, { timeoutMs: 20_000 });
    expect(t.dictation.engines.loaded()).toEqual([]);
    expect(lines("voice activity detector unloaded")).toHaveLength(1);

    expect((await dictate()).status).toBe(200);
    expect(lines("speech model loaded")).toHaveLength(3);
    expect(lines("voice activity detector loaded")).toHaveLength(2);
    await until(() => unloaded() === 3, Boolean, { timeoutMs: 20_000 });
    await t.dictation.close();
  }, 60_000);

  test("with the default (5m), nothing is given back right after a dictation", async () => {
    const t = createTestApp();
    expect(t.services.settings.get("keep_alive")).toBe("5m");
    t.services.settings.set("stt_engine", "sphinx");
    const wav = encodeWav(goForward());
    const answer = await t.request("/api/transcribe", {
      method: "POST",
      headers: { "content-type": "audio/wav" },
      body: wav,
    });
    expect(answer.status).toBe(200);
    await Bun.sleep(100);
    expect(t.dictation.engines.loaded()).toEqual(["sphinx"]);
    expect(t.logs.some((line) => line.msg === "speech engines unloaded after keep_alive")).toBe(false);
    await t.dictation.close();
  }, 60_000);
});
