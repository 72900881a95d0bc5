import { describe, expect, test } from "bun:test";
import { createTestApp } from "../helpers/app.ts";
import type { ErrorBody } from "../helpers/errors.ts";

const mib = 1024 * 1024;

/** A request body that sends `chunks` pieces of `size` bytes, one every `everyMs`, then ends (or never, with Infinity). */
function trickle(
  size: number,
  everyMs: number,
  chunks = Number.POSITIVE_INFINITY,
): ReadableStream<Uint8Array> {
  let sent = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  return new ReadableStream({
    start(controller) {
      if (chunks === 0) return;
      timer = setInterval(() => {
        controller.enqueue(new Uint8Array(size).fill(32));
        sent += 1;
        if (sent >= chunks) {
          clearInterval(timer);
          controller.close();
        }
      }, everyMs);
    },
    cancel() {
      clearInterval(timer);
    },
  });
}

const post = (body: BodyInit, type = "application/json") =>
  ({ method: "POST", body, duplex: "half", headers: { "content-type": type } }) as RequestInit;

describe("bodyKindOf", () => {
  // The kind each route declares (bodyKind in its documentedRoutes entry); a plugin's routes upload.
  const { bodyKindOf } = createTestApp().app;
  test.each([
    ["/api/transcribe", "upload"],
    ["/api/transcribe/", "upload"],
    ["/api/plugins/svc-profanity-filter/upload", "upload"],
    ["/api/import", "import"],
    ["/api/dictionary/import", "import"],
    ["/api/vocabulary/import", "import"],
    ["/api/plugins/install", "import"],
    ["/api/plugins/svc-profanity-filter/enable", "json"],
    ["/api/settings/plugins", "json"],
    ["/api/post-process", "json"],
    ["/api/formats", "json"],
  ])("%s gets the %s limit", (path, kind) => {
    expect(bodyKindOf(path)).toBe(kind as ReturnType<typeof bodyKindOf>);
  });
});

describe("per-route body limits", () => {
  const app = () =>
    createTestApp({ maxBodyBytes: 64 * mib, body: { maxJsonBytes: 64 * 1024, maxImportBytes: 4 * mib } });

  test("an ordinary JSON route refuses a body over SVC_MAX_JSON_SIZE, even under SVC_MAX_BODY_SIZE", async () => {
    const res = await app().json("/api/formats", "POST", { label: "x", pad: "x".repeat(100_000) });
    expect(res.status).toBe(413);
    const { error } = (await res.json()) as ErrorBody;
    expect(error.code).toBe("payload_too_large");
    expect(error.details).toEqual({ limit: 64 * 1024, setting: "SVC_MAX_JSON_SIZE" });
  });

  test("an import takes a body over SVC_MAX_JSON_SIZE, up to SVC_MAX_IMPORT_SIZE", async () => {
    const t = app();
    const rows = Array.from({ length: 5_000 }, (_, i) => ({ key: `key number ${i}`, value: `value ${i}` }));
    const res = await t.json("/api/dictionary/import", "POST", rows);
    expect(res.status).toBe(200);
    const over = await t.json("/api/import", "POST", { format: "svc-export", pad: "x".repeat(5 * mib) });
    expect(over.status).toBe(413);
    expect(((await over.json()) as ErrorBody).error.details?.setting).toBe("SVC_MAX_IMPORT_SIZE");
  });

  test("an audio upload keeps SVC_MAX_BODY_SIZE", async () => {
    const res = await app().request("/api/transcribe", post(new Uint8Array(5 * mib), "audio/wav"));
    expect(res.status).not.toBe(413);
  });
});

describe("body deadline and minimum rate", () => {
  test("a body that never arrives is 408 request_timeout after SVC_BODY_TIMEOUT_MS, connection closed", async () => {
    const t = createTestApp({ body: { timeoutMs: 200 } });
    const started = performance.now();
    const res = await t.request("/api/transcribe", post(trickle(1, 1000, 0), "audio/wav"));
    expect(res.status).toBe(408);
    expect(res.headers.get("connection")).toBe("close");
    const { error } = (await res.json()) as ErrorBody;
    expect(error.code).toBe("request_timeout");
    expect(error.message).toContain("SVC_BODY_TIMEOUT_MS");
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  test("a body trickling under SVC_BODY_MIN_RATE is cut at the end of a window", async () => {
    const t = createTestApp({ body: { minBytesPerSecond: 1000, rateWindowMs: 200 } });
    const res = await t.request("/api/transcribe", post(trickle(1, 50), "audio/wav"));
    expect(res.status).toBe(408);
    const { error } = (await res.json()) as ErrorBody;
    expect(error.code).toBe("request_timeout");
    expect(error.message).toContain("SVC_BODY_MIN_RATE");
  });

  test("a slow body that keeps the rate arrives whole", async () => {
    const t = createTestApp({ body: { minBytesPerSecond: 1000, rateWindowMs: 100 } });
    // 20 chunks of 200 bytes every 20 ms: 10 000 bytes/s, four windows long.
    const res = await t.request("/api/dictionary/import", post(trickle(200, 20, 20)));
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error.code).toBe("invalid_json");
  });
});

describe("concurrent uploads", () => {
  test("one more than SVC_MAX_UPLOADS is 503 busy with Retry-After; the slots free up", async () => {
    const t = createTestApp({ body: { maxConcurrent: 2, timeoutMs: 300 } });
    const stalled = [1, 2].map(() => t.request("/api/transcribe", post(trickle(1, 1000, 0), "audio/wav")));
    await Bun.sleep(20);
    const refused = await t.request("/api/transcribe", post(trickle(1, 1000, 0), "audio/wav"));
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(refused.headers.get("connection")).toBe("close");
    expect(((await refused.json()) as ErrorBody).error.code).toBe("busy");
    expect((await Promise.all(stalled)).map((res) => res.status)).toEqual([408, 408]);
    const after = await t.json("/api/post-process", "POST", { text: "hello" });
    expect(after.status).toBe(200);
  });

  test("uploads that fill SVC_MAX_UPLOADS never block a JSON write: it has its own SVC_MAX_JSON_BODIES", async () => {
    const t = createTestApp({ body: { maxConcurrent: 2, maxJsonConcurrent: 1, timeoutMs: 300 } });
    const stalled = [1, 2].map(() => t.request("/api/transcribe", post(trickle(1, 1000, 0), "audio/wav")));
    await Bun.sleep(20);
    const setting = await t.json("/api/settings/language", "PUT", { value: "de" });
    expect(setting.status).toBe(200);
    // The JSON pool has its own bound: a stalled JSON body fills it, and the next is refused naming it.
    const stalledJson = t.request("/api/post-process", post(trickle(1, 1000, 0)));
    await Bun.sleep(20);
    const refused = await t.json("/api/settings/language", "PUT", { value: "fr" });
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as ErrorBody).error.message).toContain("SVC_MAX_JSON_BODIES");
    expect((await Promise.all([...stalled, stalledJson])).map((res) => res.status)).toEqual([408, 408, 408]);
  });
});
