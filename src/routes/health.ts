import { Hono } from "hono";
import * as v from "valibot";
import type { RouteDoc } from "../http/api-docs.ts";
import type { AppEnv } from "../http/types.ts";

export const healthDocs: RouteDoc = {
  method: "get",
  path: "/api/health",
  tag: "Server",
  summary: "Health check",
  description: "Answers while the server is up; the container health check calls it every 30 seconds.",
  responses: {
    200: {
      description: "Healthy",
      schema: v.object({ status: v.literal("ok"), name: v.literal("svc"), version: v.string() }),
    },
  },
};

export function createHealthRoutes(deps: { version: string }) {
  const body = JSON.stringify({ status: "ok", name: "svc", version: deps.version });
  return new Hono<AppEnv>().get("/", (c) => c.body(body, 200, { "Content-Type": "application/json" }));
}
