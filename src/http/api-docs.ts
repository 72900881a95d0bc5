import { type JsonSchema, toJsonSchema } from "@valibot/to-json-schema";
import type { GenericSchema } from "valibot";
import { type ErrorCode, errorCodes } from "../error-codes.ts";
import type { BodyKind } from "./body-guard.ts";
import { type EnvelopeName, envelopeStatus, errorBodySchemas } from "./error-envelopes.ts";

/** One documented route. Routes register these beside their handlers with the schemas they validate with. */
export interface RouteDoc {
  method: "get" | "post" | "put" | "patch" | "delete";
  /** Hono-style path: `/api/dictionary/:id`. */
  path: string;
  summary: string;
  tag: string;
  description?: string;
  params?: GenericSchema;
  query?: GenericSchema;
  body?: GenericSchema;
  /**
   * The handler reads and checks the body itself, and `body` only documents it: an import, which
   * reports each bad row or field by its place (400 `invalid_import`).
   */
  readsOwnBody?: true;
  /** Non-JSON request bodies (audio, CSV), by content type. */
  bodyTypes?: string[];
  /**
   * Which size limit its body gets (the body guard reads it before the route runs): `upload`
   * (SVC_MAX_BODY_SIZE) for audio, `import` (SVC_MAX_IMPORT_SIZE) for imports; JSON when absent.
   */
  bodyKind?: Exclude<BodyKind, "json">;
  responses?: Record<
    number,
    {
      description: string;
      schema?: GenericSchema;
      contentType?: string;
      /** Other bodies the same status may carry, by content type (`text/event-stream` when streamed). */
      alternatives?: Record<string, GenericSchema | undefined>;
    }
  >;
  /**
   * Who may call it when keys are required (SVC_AUTH): `open` (anyone), `dictate` (any key);
   * admin keys only when absent.
   */
  access?: "open" | "dictate";
  /**
   * Error codes this route answers with beyond those its shape implies (`impliedErrors`): the
   * OpenAPI document lists each under its status, from the table in error-codes.ts.
   */
  errors?: readonly ErrorCode[];
  /** The shape its errors take: OpenAI's under /v1; svc's own when absent. */
  envelope?: EnvelopeName;
  /**
   * A WebSocket that a page on another port of this machine may open: one that changes nothing
   * and carries no content (`/api/events`, docs/SPEC.md §5). Every other upgrade is an act, which
   * such a page may not make.
   */
  crossPort?: true;
  /**
   * A WebSocket route's messages, both directions: published as the components
   * `<name>ClientMessage` and `<name>ServerMessage`, which the operation names in
   * `x-websocket-messages` (OpenAPI 3.0 has no words for a WebSocket).
   */
  messages?: { name: string; client: GenericSchema; server: GenericSchema };
}

/** The codes every route of this shape can answer: the guards', the body reader's, the renderer's. */
function impliedErrors(doc: RouteDoc): ErrorCode[] {
  const codes: ErrorCode[] = ["invalid_host", "untrusted_host", "non_canonical_path", "internal"];
  if (doc.access !== "open") codes.push("unauthorized", "too_many_attempts");
  if (doc.access === undefined) codes.push("forbidden_role");
  if (doc.method !== "get")
    codes.push("untrusted_origin", "cross_origin_request", "storage_full", "storage_not_writable");
  if (doc.body || doc.bodyTypes) codes.push("payload_too_large", "request_timeout", "busy");
  if (doc.body) codes.push("unsupported_media_type", "invalid_json", "json_too_deep", "invalid_request");
  if (doc.query) codes.push("invalid_query");
  // A path with parameters names an item: a malformed one is refused, a missing one not found.
  if (doc.params) codes.push("invalid_request", "not_found");
  return codes;
}

/** Every error code the route can answer, in the table's order. */
export function routeErrors(doc: RouteDoc): ErrorCode[] {
  const codes = new Set<ErrorCode>([...impliedErrors(doc), ...(doc.errors ?? [])]);
  return (Object.keys(errorCodes) as ErrorCode[]).filter((code) => codes.has(code));
}

export interface ApiDocs {
  add(...docs: RouteDoc[]): void;
  readonly routes: readonly RouteDoc[];
  /** The documented route a request reaches, by its method and path (`/api/history/42`). */
  routeAt(method: string, path: string): RouteDoc | undefined;
  /** Paths under `prefix` without a route of their own (a 404, a 405) answer errors in `envelope` too. */
  claim(prefix: string, envelope: EnvelopeName): void;
  /** The envelope the prefix `path` lies under claims for it, if one does. */
  claimedAt(path: string): EnvelopeName | undefined;
  document(info: { version: string }): Record<string, unknown>;
}

/**
 * OpenAPI 3.0 requires a `required` list to name at least one property; the converter writes
 * `required: []` for an object whose properties are all optional. Drop it, at every depth.
 */
function withoutEmptyRequired(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEmptyRequired);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === "required" && Array.isArray(inner) && inner.length === 0) continue;
    out[key] = withoutEmptyRequired(inner);
  }
  return out;
}

/**
 * In an answer, a property with a default is always there (valibot fills it in): list it as
 * required, at every depth, so a client generated from the document need not test for it.
 */
function defaultsRequired(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(defaultsRequired);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) out[key] = defaultsRequired(inner);
  const properties = out.properties as Record<string, { default?: unknown }> | undefined;
  if (properties && typeof properties === "object") {
    const filled = Object.keys(properties).filter((name) => properties[name]?.default !== undefined);
    const required = new Set([...((out.required as string[] | undefined) ?? []), ...filled]);
    if (required.size > 0) out.required = [...required];
  }
  return out;
}

function jsonSchema(schema: GenericSchema, mode: "input" | "output"): JsonSchema {
  // Transforms and custom checks have no JSON Schema form; document the shape and move on.
  const converted = toJsonSchema(schema, { target: "openapi-3.0", typeMode: mode, errorMode: "ignore" });
  return withoutEmptyRequired(mode === "output" ? defaultsRequired(converted) : converted) as JsonSchema;
}

function parameters(schema: GenericSchema | undefined, where: "path" | "query") {
  if (!schema) return [];
  const converted = jsonSchema(schema, "input") as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  return Object.entries(converted.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === "path" || (converted.required ?? []).includes(name),
    schema: property,
  }));
}

export const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");

function operation(doc: RouteDoc) {
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(doc.responses ?? { 200: { description: "OK" } })) {
    const type = response.contentType ?? "application/json";
    const content: Record<string, unknown> = {};
    if (response.schema) content[type] = { schema: jsonSchema(response.schema, "output") };
    for (const [other, schema] of Object.entries(response.alternatives ?? {}))
      content[other] = schema ? { schema: jsonSchema(schema, "output") } : {};
    responses[status] = {
      description: response.description,
      ...(Object.keys(content).length > 0 ? { content } : {}),
    };
  }
  const byStatus = new Map<number, string[]>();
  const envelope = doc.envelope ?? "svc";
  for (const code of routeErrors(doc)) {
    const status = envelopeStatus(envelope, errorCodes[code].status);
    byStatus.set(status, [...(byStatus.get(status) ?? []), `\`${code}\`: ${errorCodes[code].summary}`]);
  }
  for (const [status, lines] of [...byStatus].sort(([a], [b]) => a - b)) {
    const own = doc.responses?.[status]?.description;
    responses[status] = {
      description: [own, ...lines].filter(Boolean).join("; "),
      content: { "application/json": { schema: jsonSchema(errorBodySchemas[envelope], "output") } },
    };
  }
  const content: Record<string, unknown> = {};
  if (doc.body) content["application/json"] = { schema: jsonSchema(doc.body, "input") };
  for (const type of doc.bodyTypes ?? []) content[type] = { schema: { type: "string", format: "binary" } };
  const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  return {
    summary: doc.summary,
    tags: [doc.tag],
    security: doc.access === "open" ? [] : [{ bearerKey: [] }, { consoleSession: [] }],
    "x-svc-role": doc.access ?? "admin",
    ...(doc.description ? { description: doc.description } : {}),
    parameters: [...parameters(doc.params, "path"), ...parameters(doc.query, "query")],
    ...(Object.keys(content).length > 0 ? { requestBody: { required: true, content } } : {}),
    responses,
    ...(doc.messages
      ? {
          "x-websocket-messages": {
            client: schemaRef(`${doc.messages.name}ClientMessage`),
            server: schemaRef(`${doc.messages.name}ServerMessage`),
          },
        }
      : {}),
  };
}

/** A documented path as a pattern: `:name` one segment, `*` the rest. */
const pathPattern = (path: string) =>
  new RegExp(
    `^${path
      .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
      .replace(/:[A-Za-z_][A-Za-z0-9_]*/g, "[^/]+")
      .replace(/\*/g, ".*")}$`,
  );

/** The message schemas of the WebSocket routes, by component name. */
function messageSchemas(routes: readonly RouteDoc[]): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  for (const { messages } of routes) {
    if (!messages) continue;
    schemas[`${messages.name}ClientMessage`] = jsonSchema(messages.client, "input");
    schemas[`${messages.name}ServerMessage`] = jsonSchema(messages.server, "output");
  }
  return schemas;
}

/** How a client proves who it is when keys are required (SVC_AUTH=keys or keys-everywhere). */
const securitySchemes = {
  bearerKey: {
    type: "http",
    scheme: "bearer",
    description:
      "An svc key (svck_…), made with svc keys create or on the console's Access screen. Its role (admin or dictate) decides which routes it may use: x-svc-role names each route's.",
  },
  consoleSession: {
    type: "apiKey",
    in: "cookie",
    name: "svc_session",
    description: "The console's session, set by POST /api/auth/login (HttpOnly, SameSite=Strict).",
  },
};

export function createApiDocs(): ApiDocs {
  const routes: RouteDoc[] = [];
  const claimed: { prefix: string; envelope: EnvelopeName }[] = [];
  let patterns: { doc: RouteDoc; pattern: RegExp }[] | undefined;
  const routeAt = (method: string, path: string) => {
    patterns ??= routes.map((doc) => ({ doc, pattern: pathPattern(doc.path) }));
    const wanted = method.toLowerCase();
    return patterns.find(({ doc, pattern }) => doc.method === wanted && pattern.test(path))?.doc;
  };
  return {
    add: (...docs) => {
      routes.push(...docs);
      patterns = undefined;
    },
    routes,
    routeAt,
    claim(prefix, envelope) {
      claimed.push({ prefix, envelope });
    },
    claimedAt(path) {
      return claimed.find(({ prefix }) => path === prefix || path.startsWith(`${prefix}/`))?.envelope;
    },
    document({ version }) {
      const paths: Record<string, Record<string, unknown>> = {};
      for (const doc of routes) {
        const path = toOpenApiPath(doc.path);
        paths[path] ??= {};
        paths[path][doc.method] = operation(doc);
      }
      return {
        openapi: "3.0.3",
        info: {
          title: "svc",
          version,
          description:
            "Self-hosted voice dictation server. Access (SVC_AUTH): off by default, with no credentials; with keys, every client but an unproxied loopback one (with keys-everywhere, every client) sends Authorization: Bearer svck_… or the console's session cookie on every route but GET /api/health and /api/auth/*: without a valid one 401 unauthorized (WWW-Authenticate: Bearer), a dictate key on an admin route 403 forbidden_role, and past SVC_AUTH_MAX_FAILURES wrong keys a minute from one address 429 too_many_attempts with Retry-After (x-svc-role names each route's role). Whatever the access: state-changing requests from untrusted browser origins are refused (403 untrusted_origin), and so is every request a browser sends without a CORS preflight (forms, beacons, pings, reports, no-cors fetches; a WebSocket to /api/dictate) from pages on other ports of this machine (403 cross_origin_request); JSON bodies must be sent as Content-Type: application/json (415 unsupported_media_type); and so is any request whose Host is not an IP address, localhost or a name in SVC_ALLOWED_HOSTS. An unknown path is 404 not_found; a method a path does not answer is 405 method_not_allowed with an Allow header. A request body over its route's limit is 413 payload_too_large (SVC_MAX_JSON_SIZE, 1 MiB by default; imports SVC_MAX_IMPORT_SIZE, 32 MiB; audio and plugin routes SVC_MAX_BODY_SIZE, 64 MiB); one that does not arrive within SVC_BODY_TIMEOUT_MS or keeps under SVC_BODY_MIN_RATE is 408 request_timeout; beyond SVC_MAX_UPLOADS uploads or SVC_MAX_JSON_BODIES JSON bodies arriving at once, 503 busy with Retry-After. A write that finds the disk full is 507 storage_full, naming the folder whose disk is full; it succeeds again once space is freed. Every response carries an X-Request-Id; one sent as a simple token is kept, except by GET /api/health, which reads no request header.",
        },
        paths,
        components: { schemas: messageSchemas(routes), securitySchemes },
      };
    },
  };
}
