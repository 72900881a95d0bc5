import * as v from "valibot";
import type { ApiDocs } from "../http/api-docs.ts";
import { docsStyle, renderApiDocsHtml } from "../http/api-docs-html.ts";
import { documentedRoutes } from "../http/documented-routes.ts";

const styleHash = new Bun.CryptoHasher("sha256").update(docsStyle).digest("base64");

// The page runs no script and loads nothing: only its own inline stylesheet is allowed.
export const docsCsp = [
  "default-src 'none'",
  `style-src 'sha256-${styleHash}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export function createApiReferenceRoutes(deps: { docs: ApiDocs; version: string }) {
  const { docs, version } = deps;

  // Every route is mounted by the time the first request arrives, so the document is built once.
  let document: Record<string, unknown> | undefined;
  let html: string | undefined;
  const current = () => {
    document ??= docs.document({ version });
    return document;
  };

  return documentedRoutes(docs, "/api", "Server")
    .get(
      "/openapi.json",
      {
        summary: "OpenAPI 3.0 description of this API",
        access: "dictate",
        description: "Generated from the same valibot schemas the routes validate with.",
        responses: {
          200: { description: "The OpenAPI document", schema: v.record(v.string(), v.unknown()) },
        },
      },
      (c) => c.json(current()),
    )
    .get(
      "/docs",
      {
        summary: "Readable API reference (HTML, works offline)",
        access: "dictate",
        responses: { 200: { description: "The reference page", contentType: "text/html" } },
      },
      (c) => {
        html ??= renderApiDocsHtml(current());
        c.header("Content-Security-Policy", docsCsp);
        c.header("X-Frame-Options", "DENY");
        return c.html(html);
      },
    );
}
