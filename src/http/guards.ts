import { AppError } from "../errors.ts";
import { checkHost, type HostVerdict } from "./host.ts";
import { isTrustedOrigin } from "./origin.ts";

export interface GuardOptions {
  trustedOrigins: ReadonlySet<string>;
  allowedHosts: readonly string[];
}

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);

// Clients send the same few Host values again and again; their verdicts are remembered.
const hostVerdicts = new WeakMap<GuardOptions, Map<string, HostVerdict>>();
const maxRemembered = 256;

function hostVerdict(header: string | null, options: GuardOptions): HostVerdict {
  if (header === null) return "missing";
  let verdicts = hostVerdicts.get(options);
  if (!verdicts) {
    verdicts = new Map();
    hostVerdicts.set(options, verdicts);
  }
  let verdict = verdicts.get(header);
  if (verdict === undefined) {
    verdict = checkHost(header, options.allowedHosts);
    if (verdicts.size < maxRemembered) verdicts.set(header, verdict);
  }
  return verdict;
}

/** Raises the guard's verdict for one request, or returns when it may proceed. */
export function assertRequestAllowed(request: Request, options: GuardOptions): void {
  const headers = request.headers;
  const host = hostVerdict(headers.get("host"), options);
  if (host === "missing" || host === "malformed") {
    throw new AppError(400, "invalid_host", "The Host header is missing or malformed.");
  }
  if (host === "untrusted") {
    throw new AppError(
      403,
      "untrusted_host",
      `Host "${headers.get("host")}" is not allowed. To reach svc by this name, add it to SVC_ALLOWED_HOSTS (comma-separated).`,
    );
  }
  const upgrade = headers.get("upgrade")?.toLowerCase() === "websocket";
  if (safeMethods.has(request.method) && !upgrade) return;
  const origin = headers.get("origin");
  if (origin !== null) {
    // Repeated Origin headers arrive joined by ", " and never equal a trusted origin.
    if (!isTrustedOrigin(origin, options.trustedOrigins)) {
      throw new AppError(
        403,
        "untrusted_origin",
        `Origin "${origin}" may not make state-changing requests. Trusted: localhost, 127.0.0.1, [::1], app:// and SVC_TRUSTED_ORIGINS.`,
      );
    }
    return;
  }
  // No Origin: a non-browser client, unless fetch metadata says a browser sent it cross-site.
  const site = headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") {
    throw new AppError(
      403,
      "untrusted_origin",
      `A ${site} browser request without an Origin header was refused.`,
    );
  }
}
