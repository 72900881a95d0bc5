import { describe, expect, test } from "bun:test";
import { errorResponse, lastResortError } from "../../src/http/errors.ts";
import { createLogger } from "../../src/logger.ts";

describe("lastResortError, Bun.serve's error handler", () => {
  test("an error that escapes a handler leaves as the JSON envelope, logged under the id it names", async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: "info", format: "json", write: (line) => lines.push(line) });
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      development: false,
      fetch: () => {
        throw new Error("secret detail at /srv/svc/file.ts:12");
      },
      error: lastResortError(logger),
    });
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}/api/anything`);
      expect(res.status).toBe(500);
      expect(res.headers.get("content-type")).toContain("application/json");
      const id = res.headers.get("x-request-id");
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
      const text = await res.text();
      expect(text).not.toContain("secret detail");
      const body = JSON.parse(text) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("internal");
      expect(body.error.message).toContain(id ?? "no id");
      const logged = lines.map((line) => JSON.parse(line)).find((line) => line.msg === "unhandled error");
      expect(logged).toMatchObject({ level: "error", requestId: id });
      expect(logged.error.message).toContain("secret detail");
    } finally {
      server.stop(true);
    }
  });
});

describe("a file svc may not write", () => {
  test("is 503 storage_not_writable naming the path and the chown that fixes it, never a bare 500", async () => {
    const denied = Object.assign(new Error("EACCES: permission denied, open '/srv/svc/models/ggml-x.bin'"), {
      code: "EACCES",
      path: "/srv/svc/models/ggml-x.bin",
    });
    const response = errorResponse(denied);
    expect(response.status).toBe(503);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("storage_not_writable");
    expect(body.error.message).toContain("/srv/svc/models/ggml-x.bin");
    expect(body.error.message).toContain("chown -R");
  });
});
