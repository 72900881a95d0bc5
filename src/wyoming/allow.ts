// SVC_WYOMING_ALLOW: the client addresses the Wyoming listener accepts. Wyoming has no credentials,
// so the peer's address is all there is to decide by; the list is all of it (loopback is in it by
// default, and out of it when the operator names only Home Assistant's address).
import { type CidrRange, inRanges } from "../addresses.ts";

/** By default: loopback, and the private and link-local ranges. */
export const defaultWyomingAllow = [
  "127.0.0.0/8",
  "::1/128",
  "10.0.0.0/8",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "169.254.0.0/16",
  "fc00::/7",
  "fe80::/10",
] as const;

/** Whether the Wyoming listener accepts a client at `address`: it is within `allowed`. */
export const wyomingAccepts = (address: string, allowed: readonly CidrRange[]): boolean =>
  inRanges(address, allowed);
