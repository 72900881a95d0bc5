import { Hono } from "hono";
import type { AppEnv } from "../http/types.ts";

export function createHealthRoutes(deps: { version: string }) {
  const body = JSON.stringify({ status: "ok", name: "svc", version: deps.version });
  return new Hono<AppEnv>().get("/", (c) => c.body(body, 200, { "Content-Type": "application/json" }));
}
