import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { createEventBus, eventTypes } from "../../src/events.ts";
import { toOpenApiPath } from "../../src/http/api-docs.ts";
import { createTestApp } from "../helpers/app.ts";

type OpenApi = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<
    string,
    Record<
      string,
      { summary: string; tags: string[]; responses: Record<string, { description?: string } | undefined> }
    >
  >;
};

describe("OpenAPI coverage", () => {
  test("documents every /api and /v1 route the app registers, and nothing it does not", async () => {
    const { app, request } = createTestApp();
    const registered = new Set(
      app.routes
        .filter((route) => route.method !== "ALL" && /^\/(?:api|v1)\//.test(route.path))
        .map((route) => `${route.method.toLowerCase()} ${toOpenApiPath(route.path)}`),
    );
    const doc = (await (await request("/api/openapi.json")).json()) as OpenApi;
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method} ${path}`),
      ),
    );
    expect(registered.size).toBeGreaterThan(10);
    expect([...registered].filter((route) => !documented.has(route))).toEqual([]);
    expect([...documented].filter((route) => !registered.has(route))).toEqual([]);
  });
});

describe("GET /api/openapi.json", () => {
  test("is an OpenAPI 3.0 document with the running version and error codes on every operation", async () => {
    const { request } = createTestApp();
    const res = await request("/api/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as OpenApi;
    expect(doc.openapi).toBe("3.0.3");
    expect(doc.info.version).toBe("0.0.0-test");
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item)) {
        expect(op.summary.length).toBeGreaterThan(0);
        expect(op.tags).toHaveLength(1);
        // Every route can answer 400 invalid_host and 500 internal, listed from the code table.
        expect(op.responses["400"]?.description).toContain("`invalid_host`");
        expect(op.responses["500"]?.description).toContain("`internal`");
      }
    }
  });

  test("names the errors every route can answer: 404, 405 and 507 storage_full", async () => {
    const { request } = createTestApp();
    const doc = (await (await request("/api/openapi.json")).json()) as OpenApi & {
      info: { description: string };
    };
    for (const code of ["404 not_found", "405 method_not_allowed", "507 storage_full"])
      expect(doc.info.description).toContain(code);
  });

  test("carries the validation schemas: the history list query and the settings body", async () => {
    const { request } = createTestApp();
    const doc = (await (await request("/api/openapi.json")).json()) as {
      paths: Record<string, Record<string, { parameters: { name: string }[]; requestBody?: unknown }>>;
    };
    const names = doc.paths["/api/history"]?.get?.parameters.map((p) => p.name);
    expect(names).toEqual(["limit", "offset", "search", "orderBy", "from", "to", "key"]);
    expect(doc.paths["/api/settings/{key}"]?.put?.requestBody).toMatchObject({
      content: { "application/json": { schema: { required: ["value"] } } },
    });
  });

  test("states the page size bounds the list routes enforce", async () => {
    const t = createTestApp();
    const doc = (await (await t.request("/api/openapi.json")).json()) as {
      paths: Record<string, { get: { parameters: { name: string; schema: { description?: string } }[] } }>;
    };
    const limit = doc.paths["/api/history"]?.get.parameters.find((p) => p.name === "limit");
    expect(limit?.schema.description).toBe("Page size: 1-500, default 50.");
    expect((await t.request("/api/history?limit=500")).status).toBe(200);
    expect((await t.request("/api/history?limit=501")).status).toBe(400);
  });

  test("publishes /api/dictate's messages, both directions, as components its operation names", async () => {
    const { request } = createTestApp();
    type Variants = { oneOf: { properties: { type: { enum: string[] } } }[] };
    const doc = (await (await request("/api/openapi.json")).json()) as {
      paths: Record<string, { get: { "x-websocket-messages"?: Record<string, { $ref: string }> } }>;
      components: { schemas: Record<string, Variants> };
    };
    expect(doc.paths["/api/dictate"]?.get["x-websocket-messages"]).toEqual({
      client: { $ref: "#/components/schemas/DictateClientMessage" },
      server: { $ref: "#/components/schemas/DictateServerMessage" },
    });
    const types = (name: string) =>
      doc.components.schemas[name]?.oneOf.map((variant) => variant.properties.type.enum[0]);
    expect(types("DictateClientMessage")).toEqual(["start", "stop", "cancel"]);
    expect(types("DictateServerMessage")).toEqual(["ready", "partial", "segment", "final", "error"]);
  });

  test("lists every event type the server publishes, and the bus takes no other", async () => {
    const t = createTestApp();
    const doc = (await (await t.request("/api/openapi.json")).json()) as {
      paths: Record<string, { get: { description: string } }>;
    };
    const description = doc.paths["/api/events"]?.get.description ?? "";
    for (const type of eventTypes) expect(description).toContain(type);
    // @ts-expect-error: an event type outside eventTypes does not compile.
    createEventBus().publish("history.renamed");
  });
});

describe("GET /api/docs", () => {
  test("is a self-contained HTML page under a CSP that allows no script and nothing external", async () => {
    const { request } = createTestApp();
    const res = await request("/api/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("script-src");
    expect(csp).not.toContain("unsafe-inline");
    const html = await res.text();
    expect(html).not.toMatch(/<script|<link|<img|<iframe|src=/i);
    expect(html).not.toMatch(/https?:\/\//);
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? "";
    const hash = new Bun.CryptoHasher("sha256").update(style).digest("base64");
    expect(csp).toContain(`'sha256-${hash}'`);
  });

  test("lists every documented operation with its parameters", async () => {
    const { request } = createTestApp();
    const doc = (await (await request("/api/openapi.json")).json()) as OpenApi;
    const html = await (await request("/api/docs")).text();
    for (const path of Object.keys(doc.paths)) expect(html).toContain(`<code>${path}</code>`);
    expect(html).toContain("tzOffsetMinutes");
    expect(html).toContain("<h2>History</h2>");
    expect(html).toContain("<h2>Settings</h2>");
  });
});

describe("POST /api/transcribe's documented errors", () => {
  test("list every error code the dictation path can answer with", async () => {
    const { transcribeDoc } = await import("../../src/routes/transcribe.ts");
    const { routeErrors } = await import("../../src/http/api-docs.ts");
    const { isErrorCode } = await import("../../src/error-codes.ts");
    const root = new URL("../../", import.meta.url).pathname;
    const files = [
      ...new Glob("src/dictation/**/*.ts").scanSync(root),
      "src/routes/transcribe.ts",
      "src/formats/app-context.ts",
      "src/http/multipart.ts",
      "src/http/body-guard.ts",
    ]
      // Model downloads and live dictation (its pace rule) are not on the upload path.
      .filter((path) => !path.startsWith("src/dictation/engines/store/"))
      .filter((path) => !path.startsWith("src/dictation/live/"));
    // Every code is a string literal typed ErrorCode wherever it is thrown, passed or returned.
    const used = new Set<string>();
    for (const file of files) {
      const source = await Bun.file(`${root}${file}`).text();
      for (const match of source.matchAll(/"([a-z]+(?:_[a-z]+)*)"/g))
        if (match[1] && isErrorCode(match[1])) used.add(match[1]);
    }
    expect(used.has("invalid_language")).toBe(true);
    const documented = new Set<string>(
      routeErrors({ ...transcribeDoc, method: "post", path: "/api/transcribe", tag: "Dictation" }),
    );
    // Only the translate task, which /api/transcribe never asks for, answers translation_unsupported.
    expect(used.has("translation_unsupported")).toBe(true);
    used.delete("translation_unsupported");
    expect([...used].filter((code) => !documented.has(code))).toEqual([]);
    const doc = (await (await createTestApp().request("/api/openapi.json")).json()) as {
      paths: Record<string, { post?: { responses: Record<string, { description: string }> } }>;
    };
    const responses = Object.values(doc.paths["/api/transcribe"]?.post?.responses ?? {});
    for (const code of documented)
      expect(responses.some((response) => response.description.includes(`\`${code}\``))).toBe(true);
  });
});
