// Addresses and CIDR ranges, IPv4 and IPv6 alike: the Wyoming allow-list (SVC_WYOMING_ALLOW), the
// proxies whose forwarded address svc believes (SVC_TRUSTED_PROXIES) and the throttle's networks.

/** One range: an IPv4 (32-bit) or IPv6 (128-bit) network and its prefix length. */
export interface CidrRange {
  readonly text: string;
  readonly v6: boolean;
  readonly network: bigint;
  readonly bits: number;
}

function parseV4(text: string): bigint | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    value = (value << 8n) | BigInt(part);
  }
  return value;
}

function parseV6(text: string): bigint | null {
  const zone = text.indexOf("%");
  const bare = zone >= 0 ? text.slice(0, zone) : text;
  const halves = bare.split("::");
  if (halves.length > 2) return null;
  const groups = (half: string): string[] | null => (half === "" ? [] : half.split(":"));
  const head = groups(halves[0] ?? "");
  const tail = halves.length === 2 ? groups(halves[1] ?? "") : [];
  if (head === null || tail === null) return null;
  const words: bigint[] = [];
  const read = (list: string[]): boolean => {
    for (const [index, group] of list.entries()) {
      if (index === list.length - 1 && group.includes(".")) {
        const v4 = parseV4(group);
        if (v4 === null) return false;
        words.push(v4 >> 16n, v4 & 0xffffn);
      } else if (/^[0-9a-f]{1,4}$/i.test(group)) {
        words.push(BigInt(`0x${group}`));
      } else return false;
    }
    return true;
  };
  if (!read(head)) return null;
  const headWords = words.splice(0);
  if (!read(tail)) return null;
  const missing = 8 - headWords.length - words.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const all = [...headWords, ...Array<bigint>(missing).fill(0n), ...words];
  return all.reduce((sum, word) => (sum << 16n) | word, 0n);
}

/** An address as a number; IPv4 mapped into IPv6 (::ffff:a.b.c.d) reads as IPv4. */
export function parseAddress(text: string): { v6: boolean; value: bigint } | null {
  const v4 = parseV4(text);
  if (v4 !== null) return { v6: false, value: v4 };
  const v6 = parseV6(text);
  if (v6 === null) return null;
  if (v6 >> 32n === 0xffffn) return { v6: false, value: v6 & 0xffffffffn };
  return { v6: true, value: v6 };
}

export function parseCidrList(text: string): { ranges: CidrRange[]; invalid: string[] } {
  const ranges: CidrRange[] = [];
  const invalid: string[] = [];
  for (const entry of text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "")) {
    const [address = "", prefix] = entry.split("/");
    const parsed = parseAddress(address);
    const width = parsed?.v6 ? 128 : 32;
    const bits = prefix === undefined ? width : /^\d{1,3}$/.test(prefix) ? Number(prefix) : -1;
    if (parsed === null || bits < 0 || bits > width) {
      invalid.push(entry);
      continue;
    }
    const shift = BigInt(width - bits);
    ranges.push({ text: entry, v6: parsed.v6, network: (parsed.value >> shift) << shift, bits });
  }
  return { ranges, invalid };
}

/** Whether `address` is within one of `ranges`; false for anything that is not an address. */
export function inRanges(address: string, ranges: readonly CidrRange[]): boolean {
  const parsed = parseAddress(address);
  if (parsed === null) return false;
  return ranges.some((range) => {
    if (range.v6 !== parsed.v6) return false;
    const shift = BigInt((range.v6 ? 128 : 32) - range.bits);
    return (parsed.value >> shift) << shift === range.network;
  });
}

/**
 * The network an address belongs to, as text: its /24 for IPv4 (mapped ones too), its /64 for
 * IPv6, where one household or one attacker usually holds every address. The address itself
 * when it is not one (`local`).
 */
export function networkOf(address: string): string {
  const parsed = parseAddress(address);
  if (parsed === null) return address;
  return parsed.v6 ? `${(parsed.value >> 64n).toString(16)}::/64` : `${parsed.value >> 8n}/24`;
}
