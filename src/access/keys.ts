import * as v from "valibot";

// A key is `svck_` + a 12-hex-digit id (how svc finds its record) + 256 random bits in base64url.
// The fixed prefix lets secret scanners find a leaked one; svc stores only its SHA-256.

/** Every svc key starts with this. */
export const keyPrefix = "svck_";
const keyShape = /^svck_([0-9a-f]{12})[A-Za-z0-9_-]{43}$/;

export const roles = ["admin", "dictate"] as const;
export type Role = (typeof roles)[number];

export const authModes = ["off", "keys", "keys-everywhere"] as const;
export type AuthMode = (typeof authModes)[number];

export const keyNameSchema = v.pipe(
  v.string(),
  v.regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    "a key name is 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit",
  ),
);

// Web Crypto and Bun's own: node:crypto would load its whole module (streams included) at start.
const randomBytes = (count: number): Buffer => Buffer.from(crypto.getRandomValues(new Uint8Array(count)));

export const sha256 = (text: string): Uint8Array => Bun.CryptoHasher.hash("sha256", text) as Uint8Array;

/** A new key and its id. */
export function generateKey(): { id: string; key: string } {
  const id = randomBytes(6).toString("hex");
  return { id, key: `${keyPrefix}${id}${randomBytes(32).toString("base64url")}` };
}

const keyLength = keyPrefix.length + 12 + 43;

/**
 * The id a presented key claims, or null when it cannot be a key (its length or prefix is wrong).
 * The id only finds the record; the whole key is then compared in constant time, so a key sent
 * again needs no more than this (`isKeyShaped` guards the lookups of keys svc does not know).
 */
export function keyIdOf(presented: string): string | null {
  if (presented.length !== keyLength || !presented.startsWith(keyPrefix)) return null;
  return presented.slice(keyPrefix.length, keyPrefix.length + 12);
}

/** Whether `presented` has a key's shape: the prefix, a hex id and 256 bits in base64url. */
export const isKeyShaped = (presented: string): boolean => keyShape.test(presented);

/** Whether the presented key hashes to `stored`, compared in constant time. */
export function keyMatches(presented: string, stored: Uint8Array): boolean {
  const hash = sha256(presented);
  return hash.length === stored.length && crypto.timingSafeEqual(hash, stored);
}

const encoder = new TextEncoder();

/**
 * Whether `presented` is the key `known` holds (the bytes of a key that already matched its hash),
 * compared in constant time: a key sent again is checked without hashing it again.
 */
export function sameKey(presented: string, known: Uint8Array): boolean {
  if (presented.length !== known.length) return false;
  // Every character is compared, whatever differs first: no early exit, and nothing allocated (a
  // key is ASCII, so its characters are its bytes).
  let difference = 0;
  for (let i = 0; i < known.length; i++) difference |= presented.charCodeAt(i) ^ (known[i] ?? 0);
  return difference === 0;
}

/** A key's bytes, remembered once it matched its hash. */
export const keyBytes = (key: string): Uint8Array => encoder.encode(key);

/** A random token (a session, a login code): 256 bits, base64url. */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString("base64url");
