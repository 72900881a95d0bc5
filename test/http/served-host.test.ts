import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { createTestApp } from "../helpers/app.ts";
import { rawRequest } from "../helpers/raw-http.ts";

// The Host guard reads the host from `request.url`, which Bun.serve builds from the Host header.
// These requests carry raw Host headers to a real Bun.serve, served as main.ts serves the app, so a
// Bun that built its URLs differently would fail here.

let server: Server<unknown>;
let logs: Record<string, unknown>[];

beforeAll(() => {
  const { app, logs: lines } = createTestApp({ allowedHosts: ["svc.lan"] });
  logs = lines;
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, routes: app.bunRoutes, fetch: app.fetch });
});

afterAll(() => server.stop(true));

/** Sends a request as raw lines; returns its status and the error code of its body, if any. */
async function send(head: string[]): Promise<{ status: number; code: string | null }> {
  const { status, body } = await rawRequest(server.port ?? 0, head);
  return { status, code: /"code":"([a-z_]+)"/.exec(body)?.[1] ?? null };
}

const cases: [string, number, string | null][] = [
  ["localhost", 200, null],
  ["localhost:4649", 200, null],
  ["LOCALHOST:4649", 200, null],
  ["127.0.0.1:4649", 200, null],
  ["[::1]:4649", 200, null],
  ["192.168.1.5", 200, null],
  ["svc.lan:4649", 200, null],
  ["SVC.LAN", 200, null],
  ["evil.com", 403, "untrusted_host"],
  ["evil.com:4649", 403, "untrusted_host"],
  ["rebind.attacker.example:4649", 403, "untrusted_host"],
  ["localhost.evil.com", 403, "untrusted_host"],
  ["127.0.0.1.nip.io", 403, "untrusted_host"],
  ["svc.lan.evil.com", 403, "untrusted_host"],
  ["", 400, "invalid_host"],
  ["localhost@evil.com", 400, "invalid_host"],
  ["evil.com@localhost", 400, "invalid_host"],
  ["localhost/evil", 400, "invalid_host"],
  ["evil.com/x?@localhost", 400, "invalid_host"],
  ["evil.com#localhost", 400, "invalid_host"],
  ["localhost\\evil.com", 400, "invalid_host"],
  ["localhost:abc", 400, "invalid_host"],
  ["localhost, evil.com", 400, "invalid_host"],
  ["lo calhost", 400, "invalid_host"],
  ["[zz::1]", 400, "invalid_host"],
  ["local_host", 400, "invalid_host"],
];

describe("Host guard behind a real Bun.serve", () => {
  test.each(cases)("Host: %p → %d", async (host, status, code) => {
    // The health route answers from Bun.serve's route table; /api/settings goes through Hono.
    for (const path of ["/api/health", "/api/settings"]) {
      const answer = await send([`GET ${path} HTTP/1.1`, `Host: ${host}`]);
      expect({ path, ...answer }).toEqual({ path, status, code });
    }
  });

  test("a refused request is logged under the path it asked for", async () => {
    await send(["GET /api/settings/language?x=1 HTTP/1.1", "Host: localhost@evil.com"]);
    const line = logs.findLast((entry) => entry.msg === "request");
    expect(line).toMatchObject({ path: "/api/settings/language", status: 400 });
  });

  test("a request without a Host header is refused with 400", async () => {
    for (const path of ["/api/health", "/api/settings"]) {
      // HTTP/1.1 requires Host and Bun refuses the request itself; HTTP/1.0 reaches svc's guard.
      expect((await send([`GET ${path} HTTP/1.1`])).status).toBe(400);
      expect(await send([`GET ${path} HTTP/1.0`])).toEqual({ status: 400, code: "invalid_host" });
    }
  });

  test("a state-changing request from a rebound page is refused for its Host before its Origin", async () => {
    const answer = await send([
      "PUT /api/settings/language HTTP/1.1",
      "Host: evil.com",
      "Origin: http://evil.com",
    ]);
    expect(answer).toEqual({ status: 403, code: "untrusted_host" });
  });

  test.each([
    ["localhost:4649", "evil.com"],
    ["localhost", "localhost"],
    ["127.0.0.1", "svc.lan"],
  ])("two Host headers (%p, then %p) are 400 invalid_host on every route", async (first, second) => {
    for (const path of ["/api/health", "/api/settings"]) {
      const answer = await send([`GET ${path} HTTP/1.1`, `Host: ${first}`, `Host: ${second}`]);
      expect({ path, ...answer }).toEqual({ path, status: 400, code: "invalid_host" });
    }
  });
});
