import { describe, expect, test } from "bun:test";
import { parseCidrList } from "../../src/addresses.ts";
import { defaultWyomingAllow, wyomingAccepts } from "../../src/wyoming/allow.ts";

const defaults = parseCidrList(defaultWyomingAllow.join(",")).ranges;

describe("SVC_WYOMING_ALLOW", () => {
  test("by default accepts loopback and the private ranges, and nothing else", () => {
    for (const address of [
      "127.0.0.1",
      "::1",
      "::ffff:127.0.0.1",
      "10.1.2.3",
      "172.31.0.9",
      "192.168.1.30",
      "fd00::5",
      "fe80::1",
      "::ffff:192.168.1.30",
    ])
      expect({ address, accepted: wyomingAccepts(address, defaults) }).toEqual({ address, accepted: true });
    for (const address of [
      "8.8.8.8",
      "172.32.0.1",
      "192.169.0.1",
      "2001:db8::1",
      "::ffff:8.8.8.8",
      "not an address",
    ])
      expect({ address, accepted: wyomingAccepts(address, defaults) }).toEqual({ address, accepted: false });
  });

  test("a single address narrows it to that client: loopback too is refused unless listed", () => {
    const only = parseCidrList("192.168.1.30").ranges;
    expect(wyomingAccepts("192.168.1.30", only)).toBe(true);
    expect(wyomingAccepts("192.168.1.31", only)).toBe(false);
    expect(wyomingAccepts("127.0.0.1", only)).toBe(false);
    expect(wyomingAccepts("::1", only)).toBe(false);
    const withLoopback = parseCidrList("192.168.1.30,127.0.0.1").ranges;
    expect(wyomingAccepts("127.0.0.1", withLoopback)).toBe(true);
    expect(wyomingAccepts("::ffff:127.0.0.1", withLoopback)).toBe(true);
  });

  test("entries that are not addresses or CIDRs are reported", () => {
    expect(parseCidrList("10.0.0.0/8, 300.1.1.1, 10.0.0.0/33, fd00::/129, lan").invalid).toEqual([
      "300.1.1.1",
      "10.0.0.0/33",
      "fd00::/129",
      "lan",
    ]);
  });
});
