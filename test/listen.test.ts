import { describe, expect, test } from "bun:test";
import { bindFailure, isLoopback, listenUrl } from "../src/listen.ts";

describe("isLoopback", () => {
  const cases: [string, boolean][] = [
    ["127.0.0.1", true],
    ["127.0.0.2", true],
    ["127.255.255.254", true],
    ["localhost", true],
    ["LOCALHOST", true],
    ["::1", true],
    ["[::1]", true],
    ["0:0:0:0:0:0:0:1", true],
    ["0.0.0.0", false],
    ["::", false],
    ["128.0.0.1", false],
    ["127.0.0.256", false],
    // Short spellings bind loopback (inet_aton reads them): the LAN warning must not fire for them.
    ["127.0.0", true],
    ["127.1", true],
    ["0x7f.1", true],
    ["2130706433", true],
    ["::ffff:127.0.0.1", true],
    ["::ffff:10.0.0.1", false],
    ["127.0.0.1.nip.io", false],
    ["localhost.evil.com", false],
    ["192.168.1.10", false],
    ["fe80::1", false],
  ];
  test.each(cases)("%s → %p", (host, expected) => {
    expect(isLoopback(host)).toBe(expected);
  });
});

describe("listenUrl", () => {
  test.each([
    ["127.0.0.1", 4649, "http://127.0.0.1:4649"],
    ["::1", 4649, "http://[::1]:4649"],
    ["::", 80, "http://[::]:80"],
    ["[::1]", 1, "http://[::1]:1"],
    ["localhost", 8080, "http://localhost:8080"],
  ])("%s:%d → %s", (host, port, url) => {
    expect(listenUrl(host, port)).toBe(url);
  });
});

describe("bindFailure", () => {
  const failure = (code: string) => Object.assign(new Error("listen failed"), { code });
  test("names the address and the setting to change for each common cause", () => {
    expect(bindFailure("127.0.0.1", 4649, failure("EADDRINUSE"))).toBe(
      "cannot listen on 127.0.0.1:4649: the port is already in use (another svc?). Stop it or set PORT to a free port.",
    );
    expect(bindFailure("::1", 80, failure("EACCES"))).toContain("[::1]:80: permission denied");
    expect(bindFailure("192.0.2.1", 4649, failure("EADDRNOTAVAIL"))).toContain("Set HOST");
    expect(bindFailure("0.0.0.0", 1, failure("EWHATEVER"))).toBe("cannot listen on 0.0.0.0:1: listen failed");
  });

  test("names the Wyoming listener's own variables when asked", () => {
    const names = { host: "SVC_WYOMING_HOST", port: "SVC_WYOMING_PORT" };
    expect(bindFailure("127.0.0.1", 10300, failure("EADDRINUSE"), names)).toContain(
      "Stop it or set SVC_WYOMING_PORT to a free port.",
    );
    expect(bindFailure("192.0.2.1", 10300, failure("EADDRNOTAVAIL"), names)).toContain(
      "Set SVC_WYOMING_HOST",
    );
  });
});
