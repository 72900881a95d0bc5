import { type JsonSchema, toJsonSchema } from "@valibot/to-json-schema";
import type { GenericSchema } from "valibot";

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
  /** Non-JSON request bodies (audio, CSV), by content type. */
  bodyTypes?: string[];
  responses?: Record<number, { description: string; schema?: GenericSchema; contentType?: string }>;
}

export interface ApiDocs {
  add(...docs: RouteDoc[]): void;
  readonly routes: readonly RouteDoc[];
  document(info: { version: string }): Record<string, unknown>;
}

const errorSchema: JsonSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: { code: { type: "string" }, message: { type: "string" }, details: {} },
    },
  },
};

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

function jsonSchema(schema: GenericSchema, mode: "input" | "output"): JsonSchema {
  // Transforms and custom checks have no JSON Schema form; document the shape and move on.
  const converted = toJsonSchema(schema, { target: "openapi-3.0", typeMode: mode, errorMode: "ignore" });
  return withoutEmptyRequired(converted) as JsonSchema;
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
    responses[status] = {
      description: response.description,
      ...(response.schema ? { content: { [type]: { schema: jsonSchema(response.schema, "output") } } } : {}),
    };
  }
  responses.default = { description: "Error", content: { "application/json": { schema: errorSchema } } };
  const content: Record<string, unknown> = {};
  if (doc.body) content["application/json"] = { schema: jsonSchema(doc.body, "input") };
  for (const type of doc.bodyTypes ?? []) content[type] = { schema: { type: "string", format: "binary" } };
  if (doc.body && !responses[415]) {
    responses[415] = {
      description: `unsupported_media_type: the body is not declared as ${Object.keys(content).join(" or ")}`,
      content: { "application/json": { schema: errorSchema } },
    };
  }
  return {
    summary: doc.summary,
    tags: [doc.tag],
    ...(doc.description ? { description: doc.description } : {}),
    parameters: [...parameters(doc.params, "path"), ...parameters(doc.query, "query")],
    ...(Object.keys(content).length > 0 ? { requestBody: { required: true, content } } : {}),
    responses,
  };
}

export function createApiDocs(): ApiDocs {
  const routes: RouteDoc[] = [];
  return {
    add: (...docs) => {
      routes.push(...docs);
    },
    routes,
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
            "Self-hosted voice dictation server. No authentication: state-changing requests from untrusted browser origins are refused (403 untrusted_origin), and so are forms, beacons and no-cors requests from pages on other ports of this machine (403 cross_origin_request); JSON bodies must be sent as Content-Type: application/json (415 unsupported_media_type); and so is any request whose Host is not an IP address, localhost or a name in SVC_ALLOWED_HOSTS. An unknown path is 404 not_found; a method a path does not answer is 405 method_not_allowed with an Allow header. A request body over its route's limit is 413 payload_too_large (SVC_MAX_JSON_SIZE, 1 MiB by default; imports SVC_MAX_IMPORT_SIZE, 32 MiB; audio and plugin routes SVC_MAX_BODY_SIZE, 64 MiB); one that does not arrive within SVC_BODY_TIMEOUT_MS or keeps under SVC_BODY_MIN_RATE is 408 request_timeout; beyond SVC_MAX_UPLOADS bodies arriving at once, 503 busy with Retry-After. A write that finds the disk full is 507 storage_full, naming the folder whose disk is full; it succeeds again once space is freed. Every response carries an X-Request-Id; one sent as a simple token is kept, except by GET /api/health, which reads no request header.",
        },
        paths,
      };
    },
  };
}
