import { describe, expect, test } from "bun:test";
import { Hono } from "hono";
import { createTestApp } from "./helpers/app.ts";

describe("GET /api/health from Bun.serve's route table", () => {
  // main.ts hands `app.bunRoutes` to Bun.serve; these requests take that path, not Hono's. Bun.serve
  // builds a request's URL from its Host header, so the host is given as the URL's.
  function viaRouteTable(host: string, headers: Record<string, string> = {}) {
    const test = createTestApp();
    const handler = test.app.bunRoutes["/api/health"].GET;
    const request = new Request(`http://${host}/api/health?probe=1`, { headers });
    return { response: handler(request, undefined as never), logs: test.logs };
  }

  test("answers with the same body and security headers as the Hono route, under its own id", async () => {
    const { response, logs } = viaRouteTable("localhost:4649", { "x-request-id": "probe-1" });
    const res = await response;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok", name: "svc", version: "0.0.0-test" });
    // The route reads no request header: an offered id is not taken up there.
    const id = res.headers.get("x-request-id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("cross-origin-resource-policy")).toBe("same-origin");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    const hono = await createTestApp().request("/api/health");
    expect([...res.headers.keys()].sort()).toEqual([...hono.headers.keys()].sort());
    const line = logs.find((entry) => entry.msg === "request");
    expect(line).toMatchObject({ requestId: id, method: "GET", path: "/api/health", status: 200 });
  });

  test("answers built one after another each keep their own request id", async () => {
    // The id goes into a shared header template just before each Response copies it.
    const asked = [0, 1, 2].map(() => viaRouteTable("localhost"));
    const ids = await Promise.all(
      asked.map(async ({ response }) => (await response).headers.get("x-request-id")),
    );
    expect(new Set(ids).size).toBe(3);
    const logged = asked.map(({ logs }) => logs.find((entry) => entry.msg === "request")?.requestId);
    expect(logged).toEqual(ids);
  });

  test("a passing health check is logged at debug (a container asks every 30 s), a failing one at info", async () => {
    const { response, logs } = viaRouteTable("localhost");
    await response;
    expect(logs.find((entry) => entry.msg === "request")).toMatchObject({ level: "debug", status: 200 });
    const refused = viaRouteTable("rebound.evil.com");
    await refused.response;
    expect(refused.logs.find((entry) => entry.msg === "request")).toMatchObject({
      level: "info",
      status: 403,
    });
  });

  test("still runs the Host guard and logs the refusal", async () => {
    const { response, logs } = viaRouteTable("rebound.evil.com");
    const res = await response;
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("untrusted_host");
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(logs.find((entry) => entry.msg === "request")).toMatchObject({ path: "/api/health", status: 403 });
  });
});

describe("GET /api/health", () => {
  test("answers ok with the service name", async () => {
    const { request } = createTestApp();
    const res = await request("/api/health");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await res.json()).toEqual({ status: "ok", name: "svc", version: "0.0.0-test" });
  });

  test("sets a request id, security headers and no CORS header", async () => {
    const { request } = createTestApp();
    const res = await request("/api/health", { headers: { origin: "https://evil.example" } });
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("keeps a well-formed incoming request id and replaces a hostile one", async () => {
    const { request } = createTestApp();
    const kept = await request("/api/health", { headers: { "x-request-id": "abc-123" } });
    expect(kept.headers.get("x-request-id")).toBe("abc-123");
    const replaced = await request("/api/health", { headers: { "x-request-id": "a\tb<script>" } });
    expect(replaced.headers.get("x-request-id")).not.toContain("<");
  });

  test("logs one line per request with method, path, status and duration", async () => {
    const { request, logs } = createTestApp();
    await request("/api/health");
    const lines = logs.filter((line) => line.msg === "request");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: "GET", path: "/api/health", status: 200 });
    expect(typeof lines[0]?.ms).toBe("number");
  });
});

describe("unknown routes", () => {
  test.each([
    ["GET", "/api/nope"],
    ["POST", "/api/nope"],
    ["DELETE", "/nope"],
    ["GET", "/v2/anything"],
  ])("%s %s is a 404 envelope", async (method, path) => {
    const { request } = createTestApp();
    const res = await request(path, { method });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("not_found");
    expect(body.error.message).toContain(path);
  });
});

describe("unsupported methods on existing paths", () => {
  test.each([
    ["PATCH", "/api/settings/language", "GET, HEAD, PUT, DELETE"],
    ["DELETE", "/api/settings", "GET, HEAD, PATCH"],
    ["PUT", "/api/history", "GET, HEAD, DELETE"],
    ["POST", "/api/history/7", "GET, HEAD, DELETE"],
    ["PUT", "/api/dictionary/1", "GET, HEAD, PATCH, DELETE"],
    ["GET", "/api/import", "POST"],
    ["POST", "/api/health", "GET, HEAD"],
    ["OPTIONS", "/api/formats", "GET, HEAD, POST"],
    // The console's document answers GET at /, nothing else.
    ["DELETE", "/", "GET, HEAD"],
  ])("%s %s is 405 method_not_allowed with Allow: %s", async (method, path, allow) => {
    const { request } = createTestApp();
    const res = await request(path, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe(allow);
    expect(res.headers.get("x-request-id")).toBeTruthy();
    const body = (await res.json()) as { error: { code: string; message: string; details: unknown } };
    expect(body.error.code).toBe("method_not_allowed");
    expect(body.error.message).toContain(allow);
    expect(body.error.details).toEqual({ allowed: allow.split(", ") });
  });

  test("a path with no route for any method stays 404", async () => {
    const { request } = createTestApp();
    expect((await request("/api/settings/a/b", { method: "PATCH" })).status).toBe(404);
  });
});

describe("origin guard", () => {
  const cases: [string, Record<string, string>, number, string | null][] = [
    ["POST", {}, 404, null],
    ["POST", { origin: "http://localhost:5173", "content-type": "application/json" }, 404, null],
    ["POST", { origin: "http://localhost:5173" }, 403, "cross_origin_request"],
    ["POST", { origin: "http://localhost:5173", "content-type": "text/plain" }, 403, "cross_origin_request"],
    [
      "POST",
      { origin: "http://127.0.0.1:8080", "content-type": "multipart/form-data; boundary=x" },
      403,
      "cross_origin_request",
    ],
    [
      "POST",
      { origin: "http://[::1]:3000", "content-type": "Application/X-WWW-Form-URLencoded" },
      403,
      "cross_origin_request",
    ],
    [
      "POST",
      { origin: "http://localhost:5173", "content-type": "application/json, text/plain" },
      403,
      "cross_origin_request",
    ],
    ["POST", { origin: "http://localhost:5173", "content-type": "audio/wav" }, 404, null],
    // Sent unasked with types of their own: CSP reports, Reporting-API reports, <a ping>.
    [
      "POST",
      { origin: "http://localhost:5173", "content-type": "application/csp-report" },
      403,
      "cross_origin_request",
    ],
    [
      "POST",
      { origin: "http://localhost:5173", "content-type": "application/reports+json" },
      403,
      "cross_origin_request",
    ],
    ["POST", { origin: "http://localhost:5173", "content-type": "text/ping" }, 403, "cross_origin_request"],
    [
      "POST",
      { origin: "http://127.0.0.1:8080", "content-type": "application/x-unknown" },
      403,
      "cross_origin_request",
    ],
    // Fetch metadata says the browser did not ask first, whatever the type claims.
    [
      "POST",
      { origin: "http://localhost:5173", "content-type": "application/json", "sec-fetch-mode": "no-cors" },
      403,
      "cross_origin_request",
    ],
    [
      "POST",
      { origin: "http://localhost:5173", "content-type": "application/json", "sec-fetch-mode": "navigate" },
      403,
      "cross_origin_request",
    ],
    ["DELETE", { origin: "http://localhost:5173", "sec-fetch-mode": "no-cors" }, 403, "cross_origin_request"],
    [
      "POST",
      { origin: "http://localhost:5173", "content-type": "application/json", "sec-fetch-mode": "cors" },
      404,
      null,
    ],
    ["POST", { origin: "http://localhost:5173", "content-type": "text/csv" }, 404, null],
    ["POST", { origin: "app://svc", "content-type": "text/ping", "sec-fetch-mode": "no-cors" }, 404, null],
    ["POST", { origin: "http://localhost" }, 404, null],
    ["POST", { origin: "https://localhost", "content-type": "text/plain" }, 404, null],
    ["POST", { origin: "http://localhost:80", "content-type": "text/plain" }, 403, "cross_origin_request"],
    ["POST", { origin: "app://svc", "content-type": "text/plain" }, 404, null],
    ["POST", { origin: "https://trusted.example", "content-type": "text/plain" }, 404, null],
    ["PUT", { origin: "http://127.0.0.1" }, 404, null],
    ["DELETE", { origin: "http://[::1]:4649" }, 404, null],
    ["PATCH", { origin: "app://svc" }, 404, null],
    ["POST", { origin: "https://trusted.example" }, 404, null],
    [
      "POST",
      { origin: "http://localhost.evil.com", "content-type": "application/json" },
      403,
      "untrusted_origin",
    ],
    ["POST", { origin: "null" }, 403, "untrusted_origin"],
    ["POST", { origin: "http://evil.com" }, 403, "untrusted_origin"],
    ["PUT", { origin: "http://localhost.evil.com" }, 403, "untrusted_origin"],
    ["DELETE", { origin: "http://127.0.0.1.nip.io" }, 403, "untrusted_origin"],
    ["PATCH", { origin: "http://localhost@evil.com" }, 403, "untrusted_origin"],
    ["POST", { origin: "not a url" }, 403, "untrusted_origin"],
    ["POST", { origin: "http://localhost, http://evil.com" }, 403, "untrusted_origin"],
    ["POST", { "sec-fetch-site": "cross-site" }, 403, "untrusted_origin"],
    ["POST", { "sec-fetch-site": "same-site" }, 403, "untrusted_origin"],
    ["POST", { "sec-fetch-site": "same-origin" }, 404, null],
    ["GET", { origin: "http://evil.com" }, 200, null],
    ["HEAD", { origin: "http://evil.com" }, 200, null],
    ["OPTIONS", { origin: "http://evil.com" }, 404, null],
  ];
  test.each(cases)("%s with %j → %d", async (method, headers, status, code) => {
    const { request } = createTestApp({ trustedOrigins: ["https://trusted.example"] });
    const path = method === "GET" || method === "HEAD" ? "/api/health" : "/api/nope";
    const res = await request(path, { method, headers });
    expect(res.status).toBe(status);
    if (code) expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code);
  });

  test("a WebSocket upgrade from an untrusted origin is refused before routing", async () => {
    const { request } = createTestApp();
    const res = await request("/api/events", {
      headers: { upgrade: "websocket", connection: "Upgrade", origin: "http://evil.com" },
    });
    expect(res.status).toBe(403);
  });

  test("GET /api/events without an upgrade asks for one", async () => {
    const { request } = createTestApp();
    const res = await request("/api/events");
    expect(res.status).toBe(426);
  });
});

describe("host guard", () => {
  // Through `app.request` the host is the URL's, as Bun.serve builds it from the Host header; the
  // raw headers themselves are tried against a real Bun.serve in test/http/served-host.test.ts.
  const cases: [string, number, string | null][] = [
    ["localhost", 200, null],
    ["localhost:4649", 200, null],
    ["127.0.0.1:4649", 200, null],
    ["[::1]:4649", 200, null],
    ["192.168.1.5:4649", 200, null],
    ["svc.lan:4649", 200, null],
    ["evil.com", 403, "untrusted_host"],
    ["rebind.attacker.example:4649", 403, "untrusted_host"],
    ["localhost.evil.com", 403, "untrusted_host"],
    ["127.0.0.1.nip.io", 403, "untrusted_host"],
    ["evil.com@localhost", 400, "invalid_host"],
    ["localhost@evil.com", 400, "invalid_host"],
    ["-evil.com", 400, "invalid_host"],
    ["local_host", 400, "invalid_host"],
  ];
  test.each(cases)("Host %p → %d", async (host, status, code) => {
    const { app } = createTestApp({ allowedHosts: ["svc.lan"] });
    for (const path of ["/api/health", "/api/settings"]) {
      const res = await app.request(`http://${host}${path}`);
      expect({ path, status: res.status }).toEqual({ path, status });
      if (code) {
        const body = (await res.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe(code);
        if (code === "untrusted_host") expect(body.error.message).toContain("SVC_ALLOWED_HOSTS");
      }
    }
  });
});

describe("request body limit", () => {
  test("a JSON body over SVC_MAX_JSON_SIZE is 413 payload_too_large naming the setting", async () => {
    const { request } = createTestApp({ body: { maxJsonBytes: 2048 } });
    const res = await request("/api/nope", { method: "POST", body: "x".repeat(4096) });
    expect(res.status).toBe(413);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("payload_too_large");
    expect(error.message).toContain("SVC_MAX_JSON_SIZE");
  });

  test("a streamed body without Content-Length is cut off too", async () => {
    const { request } = createTestApp({ body: { maxJsonBytes: 2048 } });
    const body = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 8; i++) controller.enqueue(new Uint8Array(1024));
        controller.close();
      },
    });
    const res = await request("/api/nope", { method: "POST", body, duplex: "half" } as RequestInit);
    expect(res.status).toBe(413);
  });
});

describe("unexpected errors", () => {
  test("become 500 internal with the request id, logged, without a stack", async () => {
    const { app, request, logs } = createTestApp();
    app.route(
      "/api/boom",
      new Hono().get("/", () => {
        throw new Error("secret internals at /home/user/file.ts:12");
      }),
    );
    const res = await request("/api/boom");
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain("secret internals");
    const body = JSON.parse(text) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("internal");
    const requestId = res.headers.get("x-request-id") ?? "missing";
    expect(body.error.message).toContain(requestId);
    const logged = logs.find((line) => line.msg === "unhandled error");
    expect(logged?.requestId).toBe(requestId);
    expect(JSON.stringify(logged)).toContain("secret internals");
  });
});
