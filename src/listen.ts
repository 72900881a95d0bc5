// How svc describes the address it listens on, in log lines and in the one line it prints
// when it cannot listen there.

import { errorCode, reasonOf } from "./errors.ts";

/** True for the names and addresses that only this machine can reach: localhost, 127.0.0.0/8, ::1. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (bare === "localhost" || bare === "::1" || bare === "0:0:0:0:0:0:0:1") return true;
  if (/^127(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(bare)) return true;
  // Short and other spellings of an address (127.1, 0x7f.1, ::ffff:127.0.0.1) as the URL parser
  // reads them, which is how the socket library binds them too.
  try {
    const parsed = new URL(`http://${bare.includes(":") ? `[${bare}]` : bare}/`).hostname;
    return parsed !== bare && (isLoopback(parsed) || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(parsed));
  } catch {
    return false;
  }
}

/** A host as it goes into a URL: IPv6 addresses in brackets. */
export function urlHost(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/** The URL a person would paste into a browser. */
export function listenUrl(host: string, port: number): string {
  return `http://${urlHost(host)}:${port}`;
}

/**
 * One line for a port svc could not listen on: which address, why, and what to change. `names`
 * are the variables that set it (the Wyoming listener has its own).
 */
export function bindFailure(
  host: string,
  port: number,
  error: unknown,
  names: { host: string; port: string } = { host: "HOST", port: "PORT" },
): string {
  const code = errorCode(error);
  const where = `${urlHost(host)}:${port}`;
  switch (code) {
    case "EADDRINUSE":
      return `cannot listen on ${where}: the port is already in use (another svc?). Stop it or set ${names.port} to a free port.`;
    case "EADDRNOTAVAIL":
      return `cannot listen on ${where}: no network interface has that address. Set ${names.host} to one of this machine's addresses, or 0.0.0.0.`;
    case "EACCES":
      return `cannot listen on ${where}: permission denied (ports below 1024 need privileges). Set ${names.port} to 1024 or above.`;
    default:
      return `cannot listen on ${where}: ${reasonOf(error)}`;
  }
}
