import { describe, expect, test } from "bun:test";
import { AppError } from "../../src/errors.ts";
import { createGuard } from "../../src/http/guards.ts";

/** The guard's verdict on a GET of `url`: "ok" or the error code it raises. */
function verdicts(urls: string[]): string[] {
  const guard = createGuard({ trustedOrigins: new Set(), allowedHosts: ["svc.lan"] });
  return urls.map((url) => {
    try {
      guard(new Request(url), "GET", false, new URL(url).pathname);
      return "ok";
    } catch (error) {
      return error instanceof AppError ? error.code : String(error);
    }
  });
}

describe("createGuard: remembered hosts", () => {
  test("a host passed once lets through only URLs of that same host", () => {
    // Each passed host is remembered as its URL up to the path; look-alikes that begin with the
    // same characters must still be judged on their own.
    expect(
      verdicts([
        "http://localhost/api/health",
        "http://localhost/api/settings",
        "http://localhost.evil.com/api/health",
        "http://localhost@evil.com/api/health",
        "http://localhost:4649/api/health",
        "http://localhost:46490/api/health",
        "http://svc.lan/api/health",
        "http://svc.lan.evil.com/api/health",
        "http://127.0.0.1/api/health",
        "http://127.0.0.1.nip.io/api/health",
        "http://[::1]:4649/",
        "http://evil.com/",
      ]),
    ).toEqual([
      "ok",
      "ok",
      "untrusted_host",
      "invalid_host",
      "ok",
      "ok",
      "ok",
      "untrusted_host",
      "ok",
      "untrusted_host",
      "ok",
      "untrusted_host",
    ]);
  });

  test("the same refusals hold when every URL is judged afresh", () => {
    const urls = ["http://localhost.evil.com/", "http://svc.lan.evil.com/", "http://evil.com/"];
    expect(verdicts(urls)).toEqual(["untrusted_host", "untrusted_host", "untrusted_host"]);
  });
});
