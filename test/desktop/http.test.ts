import { describe, expect, test } from "bun:test";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { createTestApp, type TestAppOptions } from "../helpers/app.ts";
import { startPluginApp } from "../helpers/plugins.ts";
import { goForward } from "../helpers/sphinx-testdata.ts";

// The Freestyle desktop app's HTTP dialect (SVC_FREESTYLE_DESKTOP=1) through app.request: CORS for
// app://renderer and the SVC_TRUSTED_ORIGINS entries only, the health name, `cleaned`, its error
// shape, the output routes and the beacons; and, without the switch, svc exactly as before.

const renderer = "app://renderer";
const preflightHeaders = (origin: string, method = "POST") => ({
  origin,
  "access-control-request-method": method,
  "access-control-request-headers": "authorization, content-type, x-app-context",
});

function desktopApp(options: TestAppOptions = {}) {
  const app = createTestApp({ freestyleDesktop: true, ...options });
  app.services.settings.set("stt_engine", "sphinx");
  return app;
}

const slack = JSON.stringify({ app: "Slack", windowTitle: "general" });

describe("without SVC_FREESTYLE_DESKTOP", () => {
  test("svc answers as it always has: name svc, no CORS, no /stream, no desktop routes", async () => {
    const app = createTestApp();
    const health = await app.request("/api/health", { headers: { origin: renderer } });
    expect(await health.json()).toMatchObject({ status: "ok", name: "svc" });
    expect(health.headers.get("access-control-allow-origin")).toBeNull();
    expect(health.headers.get("vary")).toBeNull();
    const preflight = await app.request("/api/transcribe", {
      method: "OPTIONS",
      headers: preflightHeaders(renderer),
    });
    expect(preflight.status).toBe(405);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    expect((await app.request("/stream", { headers: { origin: renderer } })).status).toBe(404);
    expect((await app.request("/api/output/hook")).status).toBe(404);
    expect((await app.json("/api/telemetry", "POST", {})).status).toBe(404);
    expect((await app.json("/api/events", "POST", {})).status).toBe(405);
    // Errors keep svc's envelope, whoever asks.
    const missing = await app.request("/api/nope", { headers: { origin: renderer } });
    expect(await missing.json()).toMatchObject({ error: { code: "not_found" } });
    const paths = Object.keys(
      ((await (await app.request("/api/openapi.json")).json()) as { paths: object }).paths,
    );
    expect(paths.filter((path) => path === "/stream" || path.startsWith("/api/output"))).toEqual([]);
  });
});

describe("CORS with SVC_FREESTYLE_DESKTOP=1", () => {
  test("a preflight from app://renderer is answered 204 before any key is asked for", async () => {
    const app = desktopApp({ auth: "keys-everywhere" });
    for (const path of ["/api/transcribe", "/api/health", "/api/settings/hotkey", "/api/nope"]) {
      const response = await app.request(path, {
        method: "OPTIONS",
        headers: preflightHeaders(renderer, "PUT"),
      });
      expect(response.status).toBe(204);
      expect(response.headers.get("access-control-allow-origin")).toBe(renderer);
      expect(response.headers.get("access-control-allow-methods")).toBe("GET, POST, PUT, PATCH, DELETE");
      expect(response.headers.get("access-control-allow-headers")).toBe(
        "authorization, content-type, x-app-context, x-audio-duration-ms, x-skip-post-process",
      );
      expect(response.headers.get("vary")).toBe("Origin");
    }
  });

  test("every answer to app://renderer may be read by it, errors included", async () => {
    const app = desktopApp({ auth: "keys-everywhere" });
    const health = await app.request("/api/health", { headers: { origin: renderer } });
    expect(await health.json()).toMatchObject({ status: "ok", name: "freestyle" });
    expect(health.headers.get("access-control-allow-origin")).toBe(renderer);
    expect(health.headers.get("vary")).toBe("Origin");
    const refused = await app.request("/api/settings", { headers: { origin: renderer } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe(renderer);
  });

  test("no other origin ever gets Access-Control-Allow-Origin", async () => {
    const app = desktopApp();
    const origins = [
      "http://localhost:5173",
      "http://127.0.0.1:8080",
      "https://evil.example",
      "app://other",
      "app://renderer.evil.example",
      "null",
      `${renderer}, https://evil.example`,
    ];
    for (const origin of origins) {
      const preflight = await app.request("/api/transcribe", {
        method: "OPTIONS",
        headers: preflightHeaders(origin),
      });
      expect({ origin, status: preflight.status }).toEqual({ origin, status: 405 });
      expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
      for (const path of ["/api/health", "/api/settings", "/api/nope"]) {
        const response = await app.request(path, { headers: { origin } });
        expect({ origin, path, acao: response.headers.get("access-control-allow-origin") }).toEqual({
          origin,
          path,
          acao: null,
        });
      }
    }
  });

  test("an SVC_TRUSTED_ORIGINS entry is granted as app://renderer is, and keeps svc's error shape", async () => {
    const trusted = "https://dictation.example.com";
    const app = desktopApp({ trustedOrigins: [trusted] });
    const preflight = await app.request("/api/transcribe", {
      method: "OPTIONS",
      headers: preflightHeaders(trusted),
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(trusted);
    const missing = await app.request("/api/nope", { headers: { origin: trusted } });
    expect(missing.headers.get("access-control-allow-origin")).toBe(trusted);
    expect(await missing.json()).toMatchObject({ error: { code: "not_found" } });
  });
});

describe("the desktop app's answers with SVC_FREESTYLE_DESKTOP=1", () => {
  test("errors to app://renderer are {error: message, code}; svc's own clients keep svc's envelope", async () => {
    const app = desktopApp();
    const fromRenderer = await app.request("/api/transcribe", {
      method: "POST",
      headers: { origin: renderer, "content-type": "audio/wav" },
      body: new Uint8Array(0),
    });
    expect(fromRenderer.status).toBe(400);
    const body = (await fromRenderer.json()) as { error: unknown; code: unknown };
    expect(body.code).toBe("missing_audio");
    expect(typeof body.error).toBe("string");
    const fromScript = await app.request("/api/transcribe", {
      method: "POST",
      headers: { "content-type": "audio/wav" },
      body: new Uint8Array(0),
    });
    expect(await fromScript.json()).toMatchObject({ error: { code: "missing_audio" } });
    const notFound = await app.request("/api/nope", { headers: { origin: renderer } });
    expect(await notFound.json()).toEqual({ error: "No route for GET /api/nope.", code: "not_found" });
  });

  test("POST /api/transcribe answers `cleaned`, the finished text for the app's context", async () => {
    const app = desktopApp();
    const response = await app.request("/api/transcribe", {
      method: "POST",
      headers: { origin: renderer, "content-type": "audio/wav", "x-app-context": encodeURIComponent(slack) },
      body: encodeWav(goForward()),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      raw: "go forward ten meters",
      text: "Go forward ten meters",
      cleaned: "Go forward ten meters",
      disposition: "deliver",
    });
  }, 20_000);

  test("POST /api/post-process answers `cleaned`; it is empty when the text is not delivered", async () => {
    const app = desktopApp();
    const response = await app.json(
      "/api/post-process",
      "POST",
      { text: "go forward ten meters", appContext: slack },
      { origin: renderer },
    );
    expect(await response.json()).toMatchObject({
      text: "Go forward ten meters",
      cleaned: "Go forward ten meters",
    });
  });

  test("a dictation a plugin consumed answers cleaned and raw empty to the app (0.7.x pastes cleaned || raw)", async () => {
    const app = await startPluginApp({
      fixtures: ["fx-consume"],
      entries: ["@fx/consume"],
      freestyleDesktop: true,
    });
    app.services.settings.set("stt_engine", "sphinx");
    const upload = (origin?: string) =>
      app.request("/api/transcribe", {
        method: "POST",
        body: encodeWav(goForward()),
        headers: { "content-type": "audio/wav", ...(origin ? { origin } : {}) },
      });
    const toApp = (await (await upload(renderer)).json()) as Record<string, unknown>;
    expect(toApp).toMatchObject({
      disposition: "suppressed",
      consumedBy: "@fx/consume",
      cleaned: "",
      raw: "",
    });
    // svc's own clients still see what was heard.
    const toSvc = (await (await upload()).json()) as Record<string, unknown>;
    expect(toSvc).toMatchObject({ disposition: "suppressed", cleaned: "" });
    expect(String(toSvc.raw).toLowerCase()).toContain("forward");
  });

  test("GET /api/output/hook and POST /api/output/deliver let the app paste as it asked", async () => {
    const app = desktopApp();
    const hook = await app.request("/api/output/hook", { headers: { origin: renderer } });
    expect(await hook.json()).toEqual({ present: false });
    const deliver = await app.json(
      "/api/output/deliver",
      "POST",
      { text: "Go forward ten meters", mode: "clipboard", appContext: slack },
      { origin: renderer },
    );
    expect(await deliver.json()).toEqual({
      output: { text: "Go forward ten meters", mode: "clipboard" },
      disposition: "deliver",
    });
  });

  test("the beacons are answered 204 and nothing is kept; GET /api/events stays svc's socket", async () => {
    const app = desktopApp();
    for (const path of ["/api/telemetry", "/api/telemetry/person", "/api/client-error", "/api/events"]) {
      const response = await app.json(
        path,
        "POST",
        { event: "recordingStarted", distinctId: "x" },
        { origin: renderer },
      );
      expect({ path, status: response.status }).toEqual({ path, status: 204 });
    }
    expect((await app.request("/api/events")).status).toBe(426);
    const history = (await (await app.request("/api/history")).json()) as { items: unknown[] };
    expect(history.items).toEqual([]);
  });

  test("the desktop's preferences are kept as client preferences, as before", async () => {
    const app = desktopApp();
    const put = await app.json("/api/settings/hotkey_mode", "PUT", { value: "toggle" }, { origin: renderer });
    expect(put.status).toBe(200);
    const settings = (await (await app.request("/api/settings")).json()) as Record<string, unknown>;
    expect(JSON.stringify(settings)).toContain("toggle");
  });

  test("the API reference documents the desktop routes while they are served", async () => {
    const app = desktopApp();
    const doc = (await (await app.request("/api/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(doc.paths["/stream"] ?? {})).toEqual(["get"]);
    expect(Object.keys(doc.paths["/api/events"] ?? {}).sort()).toEqual(["get", "post"]);
    for (const path of ["/api/output/hook", "/api/output/deliver", "/api/telemetry", "/api/client-error"])
      expect(doc.paths[path]).toBeDefined();
  });
});
