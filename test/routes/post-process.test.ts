import { describe, expect, test } from "bun:test";
import { createTestApp } from "../helpers/app.ts";

type Result = {
  text: string;
  raw: string;
  stages: {
    cleanup: { mode: string; text: string; fallback?: { reason: string } };
    dictionary: { text: string; replacements: number };
    plugins: { text: string; errors: unknown[] };
  };
  timings: Record<string, number>;
  format: { id: number; label: string } | null;
};

describe("POST /api/post-process", () => {
  test("a dictionary entry that starts the sentence keeps the capital cleanup gave it", async () => {
    const { json } = createTestApp();
    await json("/api/dictionary", "POST", { key: "go forward", value: "go ahead" });
    const body = (await (
      await json("/api/post-process", "POST", { text: "go forward ten meters" })
    ).json()) as Result;
    expect(body.text).toBe("Go ahead ten meters");
    const mid = (await (
      await json("/api/post-process", "POST", { text: "then go forward" })
    ).json()) as Result;
    expect(mid.text).toBe("Then go ahead");
  });

  test("runs cleanup, then the dictionary, then plugins, with each stage's text and time", async () => {
    const { json } = createTestApp();
    await json("/api/dictionary", "POST", { key: "svc", value: "SVC" });
    const res = await json("/api/post-process", "POST", { text: " um so I I think svc is great period" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Result;
    expect(body.raw).toBe(" um so I I think svc is great period");
    expect(body.stages.cleanup).toMatchObject({ mode: "basic", text: "So I think svc is great." });
    expect(body.stages.dictionary).toEqual({ text: "So I think SVC is great.", replacements: 1 });
    expect(body.text).toBe("So I think SVC is great.");
    for (const stage of ["cleanup", "dictionary", "plugins", "total"])
      expect(typeof body.timings[stage]).toBe("number");
  });

  test("the app context picks a format whose style applies", async () => {
    const { json } = createTestApp();
    const res = await json("/api/post-process", "POST", {
      text: "git status period",
      appContext: { app: "iTerm2" },
    });
    const body = (await res.json()) as Result;
    expect(body.format?.label).toMatch(/terminal/i);
    expect(body.text).toBe("git status period");
  });

  test("the Voice assistant format keeps a command as said: no capital, symbols or trailing period", async () => {
    const { json } = createTestApp();
    const res = await json("/api/post-process", "POST", {
      text: "um turn on the kitchen lights to fifty percent period",
      appContext: { app: "Wyoming" },
    });
    const body = (await res.json()) as Result;
    expect(body.format?.label).toBe("Voice assistant");
    expect(body.text).toBe("turn on the kitchen lights to fifty percent period");
    const spoken = await json("/api/post-process", "POST", {
      text: "Turn off the TV.",
      appContext: { app: "Wyoming" },
    });
    expect(((await spoken.json()) as Result).text).toBe("Turn off the TV");
  });

  test("blank text answers empty text, not an error", async () => {
    const { json } = createTestApp();
    const res = await json("/api/post-process", "POST", { text: "   \n " });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Result).text).toBe("");
  });

  test("an unreachable LLM falls back to the deterministic text with the reason, never a 5xx", async () => {
    const { json, services } = createTestApp();
    services.settings.set("cleanup_mode", "llm");
    services.settings.set("llm_base_url", "http://127.0.0.1:9/v1");
    services.settings.set("llm_model", "any");
    const res = await json("/api/post-process", "POST", { text: "uh hello there" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Result;
    expect(body.text).toBe("Hello there");
    expect(body.stages.cleanup.fallback?.reason).toBe("unreachable");
  });

  test("text over the limit is 413, malformed JSON and a missing text 400", async () => {
    const { json, request } = createTestApp({ maxBodyBytes: 1024 * 1024 });
    const long = await json("/api/post-process", "POST", { text: "word ".repeat(12_000) });
    expect(long.status).toBe(413);
    expect(((await long.json()) as { error: { code: string } }).error.code).toBe("text_too_long");
    const malformed = await request("/api/post-process", {
      method: "POST",
      body: "{nope",
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    expect((await json("/api/post-process", "POST", { words: "x" })).status).toBe(400);
  });
});
