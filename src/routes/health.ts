import * as v from "valibot";
import type { ApiDocs } from "../http/api-docs.ts";
import { documentedRoutes, type RouteSpec } from "../http/documented-routes.ts";
import type { Respond, StaticRoute } from "../http/request-context.ts";
import { apiResponder } from "../http/request-info.ts";

/** The name is `freestyle` with SVC_FREESTYLE_DESKTOP=1: the desktop app adopts only a server so named. */
const healthDoc = (name: string): RouteSpec => ({
  summary: "Health check",
  access: "open",
  description: "Answers while the server is up; the container health check calls it every 30 seconds.",
  responses: {
    200: {
      description: "Healthy",
      schema: v.object({ status: v.literal("ok"), name: v.literal(name), version: v.string() }),
    },
  },
});

/**
 * The health answer, built with all of its headers (it is the most requested route: container
 * health checks and load balancers poll it). `answer` also serves it from Bun.serve's route table.
 */
export function createHealthRoutes(deps: { version: string; docs: ApiDocs; name?: "svc" | "freestyle" }) {
  const name = deps.name ?? "svc";
  const body = JSON.stringify({ status: "ok", name, version: deps.version });
  const json = apiResponder("application/json");
  const answer: Respond = (_request, info) => json(body, info);
  const route = { path: "/api/health" } as const satisfies StaticRoute;
  const routes = documentedRoutes(deps.docs, route.path, "Server").get("/", healthDoc(name), (c) =>
    answer(c.req.raw, c.env),
  );
  return { routes, answer, route };
}
