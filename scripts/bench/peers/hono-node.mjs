// The common alternative: the same minimal Hono app on Node with @hono/node-server.
import { serve } from "@hono/node-server";
import { Hono } from "hono";

const app = new Hono();
app.get("/api/health", (c) => c.json({ status: "ok", name: "svc", version: "0.0.0" }));
serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
  console.log(JSON.stringify({ msg: "svc listening", url: `http://127.0.0.1:${info.port}` }));
});
