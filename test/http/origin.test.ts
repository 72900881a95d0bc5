import { describe, expect, test } from "bun:test";
import { originTrust, parseOriginList } from "../../src/http/origin.ts";

/** True when `origin` (one raw `Origin` header value) may make state-changing requests. */
const isTrustedOrigin = (origin: string, extra: ReadonlySet<string>): boolean =>
  originTrust(origin, extra) !== undefined;

const extra = new Set(["https://dictation.example.com", "http://192.168.1.20:4649"]);

const trusted = [
  "http://localhost",
  "http://localhost:4649",
  "https://localhost",
  "https://localhost:8443",
  "http://127.0.0.1",
  "http://127.0.0.1:5173",
  "https://127.0.0.1:1",
  "http://[::1]",
  "http://[::1]:4649",
  "https://[::1]:65535",
  "app://svc",
  "app://desktop.svc",
  "app://a-b",
  "https://dictation.example.com",
  "http://192.168.1.20:4649",
];

const untrusted = [
  "null",
  "",
  " ",
  "http://evil.com",
  "https://evil.com",
  "http://localhost.evil.com",
  "http://localhost:4649.evil.com",
  "http://evil-localhost.com",
  "http://127.0.0.1.nip.io",
  "http://127.0.0.1.nip.io:4649",
  "http://localhost@evil.com",
  "http://evil.com@localhost",
  "http://localhost/",
  "http://localhost:4649/path",
  "HTTP://LOCALHOST:4649",
  "http://LOCALHOST",
  "http://localhost:",
  "http://localhost:04649",
  "http://localhost:0",
  "http://localhost:65536",
  "http://localhost:99999",
  "http://localhost ",
  " http://localhost",
  "http://localhost.",
  "ws://localhost",
  "ftp://localhost",
  "file://",
  "http://0.0.0.0",
  "http://127.0.0.2",
  "http://[0:0:0:0:0:0:0:1]",
  "http://[::ffff:127.0.0.1]",
  "http://sub.localhost",
  "http://localhost:4649, https://evil.com",
  "https://evil.com, http://localhost:4649",
  "app://",
  "app://svc/",
  "app://svc:1",
  "app://-svc",
  "app://SVC",
  "app://svc@evil.com",
  "https://dictation.example.com:443",
  "https://dictation.example.com/",
  "http://dictation.example.com",
  "https://evil.dictation.example.com",
  "http://192.168.1.20",
  "http://203.0.113.7",
  "javascript:alert(1)",
  "data:text/html,hi",
];

describe("isTrustedOrigin", () => {
  test.each(trusted)("trusts %p", (origin) => {
    expect(isTrustedOrigin(origin, extra)).toBe(true);
  });
  test.each(untrusted)("refuses %p", (origin) => {
    expect(isTrustedOrigin(origin, extra)).toBe(false);
  });
  test("SVC_TRUSTED_ORIGINS entries are exact, not patterns", () => {
    expect(isTrustedOrigin("https://dictation.example.com", new Set())).toBe(false);
  });
});

describe("parseOriginList", () => {
  test("canonicalises valid origins", () => {
    expect(parseOriginList(["HTTPS://Dictation.Example.com/", "http://host.lan:8080", "app://Svc"])).toEqual({
      origins: ["https://dictation.example.com", "http://host.lan:8080", "app://svc"],
      invalid: [],
    });
  });
  test("drops a default port the way browsers serialise it", () => {
    expect(parseOriginList(["https://a.example:443"]).origins).toEqual(["https://a.example"]);
  });
  test.each([
    "*",
    "null",
    "example.com",
    "https://a.example/path",
    "https://user@a.example",
    "https://a.example?x=1",
    "https://a.example#x",
  ])("reports %p as invalid", (entry) => {
    expect(parseOriginList([entry])).toEqual({ origins: [], invalid: [entry] });
  });
});
