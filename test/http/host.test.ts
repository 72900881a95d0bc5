import { describe, expect, test } from "bun:test";
import { checkHost, type HostVerdict, hostOf } from "../../src/http/host.ts";

const allowed = ["svc.lan", ".example.com", "my-box"];

const cases: [string | null, HostVerdict][] = [
  ["localhost", "ok"],
  ["localhost:4649", "ok"],
  ["LOCALHOST:4649", "ok"],
  ["127.0.0.1", "ok"],
  ["127.0.0.1:4649", "ok"],
  ["192.168.1.20:4649", "ok"],
  ["10.0.0.1", "ok"],
  ["203.0.113.7:80", "ok"],
  ["0.0.0.0:4649", "ok"],
  ["[::1]", "ok"],
  ["[::1]:4649", "ok"],
  ["[fe80::1]:4649", "ok"],
  ["[2001:db8::1]", "ok"],
  ["[::ffff:127.0.0.1]:4649", "ok"],
  ["svc.lan", "ok"],
  ["SVC.LAN:4649", "ok"],
  ["example.com", "ok"],
  ["dictation.example.com:443", "ok"],
  ["my-box:4649", "ok"],
  ["evil.com", "untrusted"],
  ["evil.com:4649", "untrusted"],
  ["localhost.evil.com", "untrusted"],
  ["127.0.0.1.nip.io", "untrusted"],
  ["127.0.0.1.nip.io:4649", "untrusted"],
  ["sub.localhost", "untrusted"],
  ["localhost.", "malformed"],
  ["svc.lan.evil.com", "untrusted"],
  ["evilexample.com", "untrusted"],
  ["my-box.evil.com", "untrusted"],
  ["rebind.attacker.example:4649", "untrusted"],
  [null, "missing"],
  ["", "missing"],
  ["evil.com@localhost", "malformed"],
  ["localhost@evil.com", "malformed"],
  ["localhost/evil", "malformed"],
  ["localhost\\evil.com", "malformed"],
  ["localhost:", "malformed"],
  ["localhost:65536", "malformed"],
  ["localhost:4649:1", "malformed"],
  ["localhost, evil.com", "malformed"],
  [" localhost", "malformed"],
  ["localhost ", "malformed"],
  ["127.1", "malformed"],
  ["0x7f.0.0.1", "malformed"],
  ["2130706433", "malformed"],
  ["256.0.0.1", "malformed"],
  ["[::1", "malformed"],
  ["[zz::1]", "malformed"],
  ["[]", "malformed"],
  ["http://localhost", "malformed"],
  ["-evil.com", "malformed"],
  ["lo calhost", "malformed"],
];

describe("checkHost", () => {
  test.each(cases)("%p is %p", (header, verdict) => {
    expect(checkHost(header, allowed)).toBe(verdict);
  });
  test("names outside SVC_ALLOWED_HOSTS are refused when the list is empty", () => {
    expect(checkHost("svc.lan", [])).toBe("untrusted");
    expect(checkHost("localhost", [])).toBe("ok");
  });
});

describe("hostOf", () => {
  test.each([
    ["http://localhost:4649/api/health", "localhost:4649"],
    ["https://[::1]:8443/api/health?x=1", "[::1]:8443"],
    ["http://svc.lan/", "svc.lan"],
    ["http://evil.com@localhost/api", "evil.com@localhost"],
    ["http://localhost", "localhost"],
    // Bun.serve leaves the URL relative when the Host header is missing or malformed.
    ["/api/health", null],
    ["", null],
    ["ftp://localhost/", null],
  ])("%p → %p", (url, host) => {
    expect(hostOf(url)).toBe(host);
  });
});
