import * as v from "valibot";
import { AppError, reasonOf } from "../errors.ts";

/** The version an install resolved to, with where and how to fetch it. */
export interface ResolvedPackage {
  name: string;
  version: string;
  tarball: string;
  integrity: string;
}

export interface RegistryLimits {
  maxPackumentBytes: number;
  maxTarballBytes: number;
  timeoutMs: number;
}

export const defaultRegistryLimits: RegistryLimits = {
  maxPackumentBytes: 16 * 1024 * 1024,
  maxTarballBytes: 10 * 1024 * 1024,
  timeoutMs: 30_000,
};

export interface RegistryClient {
  readonly url: string;
  resolve(name: string, requested?: string): Promise<ResolvedPackage>;
  /** The tarball's bytes, after checking them against the sha512 integrity. */
  download(resolved: ResolvedPackage): Promise<Uint8Array<ArrayBuffer>>;
}

const packumentSchema = v.object({
  "dist-tags": v.optional(v.record(v.string(), v.string()), {}),
  versions: v.record(
    v.string(),
    v.looseObject({
      dist: v.looseObject({ tarball: v.string(), integrity: v.optional(v.string()) }),
    }),
  ),
});

const unreachable = (registry: string, reason: string) =>
  new AppError("registry_unreachable", `The npm registry at ${registry} could not be used: ${reason}.`);

const tooLarge = (what: string, max: number) =>
  new AppError("package_too_large", `The ${what} is larger than ${max} bytes; svc refuses it.`);

/** Reads a body up to `max` bytes; a longer one is cancelled, never buffered whole. */
async function readCapped(response: Response, max: number, what: string): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > max) {
    await response.body?.cancel();
    throw tooLarge(what, max);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > max) {
      await reader.cancel();
      throw tooLarge(what, max);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** True when `bytes` match one of the sha512 members of an SRI string. */
export function matchesIntegrity(bytes: Uint8Array, integrity: string): boolean {
  const expected = integrity
    .split(/\s+/)
    .filter((member) => member.startsWith("sha512-"))
    .map((member) => member.slice("sha512-".length).split("?")[0]);
  if (expected.length === 0) return false;
  const actual = new Bun.CryptoHasher("sha512").update(bytes).digest("base64");
  return expected.includes(actual);
}

function pickVersion(
  tags: Record<string, string>,
  versions: readonly string[],
  requested: string | undefined,
): string | undefined {
  const wanted = requested ?? "latest";
  if (Object.hasOwn(tags, wanted)) return tags[wanted];
  if (versions.includes(wanted)) return wanted;
  const latest = tags.latest;
  // npm's rule: the latest tag wins when it satisfies the range.
  if (latest && versions.includes(latest) && Bun.semver.satisfies(latest, wanted)) return latest;
  const matching = versions.filter((version) => Bun.semver.satisfies(version, wanted));
  return matching.sort(Bun.semver.order).at(-1);
}

export function createRegistryClient(options: {
  url: string;
  limits?: Partial<RegistryLimits>;
  fetch?: typeof fetch;
}): RegistryClient {
  const registry = options.url.replace(/\/+$/, "");
  const origin = new URL(registry).origin;
  const limits = { ...defaultRegistryLimits, ...options.limits };
  const get = options.fetch ?? fetch;

  async function request(url: string, accept: string): Promise<Response> {
    try {
      // Redirects could leave the registry's host; tarballs are fetched from it alone.
      return await get(url, {
        headers: { accept },
        redirect: "error",
        signal: AbortSignal.timeout(limits.timeoutMs),
      });
    } catch (error) {
      throw unreachable(registry, reasonOf(error));
    }
  }

  return {
    url: registry,
    async resolve(name, requested) {
      // Scoped names keep their @ and encode the slash, as npm clients do.
      const url = `${registry}/${name.replace("/", "%2F")}`;
      const response = await request(
        url,
        "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8",
      );
      if (response.status === 404) {
        await response.body?.cancel();
        throw new AppError("not_found", `The registry has no package "${name}".`);
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw unreachable(registry, `it answered HTTP ${response.status} for "${name}"`);
      }
      const text = new TextDecoder().decode(
        await readCapped(response, limits.maxPackumentBytes, "package metadata"),
      );
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw unreachable(registry, `its metadata for "${name}" is not JSON`);
      }
      const parsed = v.safeParse(packumentSchema, json);
      if (!parsed.success) throw unreachable(registry, `its metadata for "${name}" is malformed`);
      const { "dist-tags": tags, versions } = parsed.output;
      const version = pickVersion(tags, Object.keys(versions), requested);
      const meta = version ? versions[version] : undefined;
      if (!version || !meta) {
        throw new AppError("not_found", `No version of "${name}" matches "${requested ?? "latest"}".`, {
          details: { name, requested: requested ?? "latest" },
        });
      }
      const { tarball, integrity } = meta.dist;
      let tarballOrigin: string | undefined;
      try {
        tarballOrigin = new URL(tarball).origin;
      } catch {
        tarballOrigin = undefined;
      }
      if (tarballOrigin !== origin) {
        throw new AppError(
          "untrusted_tarball_url",
          `The tarball of ${name}@${version} is not on ${origin}; svc refuses it.`,
        );
      }
      if (!integrity?.split(/\s+/).some((member) => member.startsWith("sha512-"))) {
        throw new AppError(
          "integrity_mismatch",
          `The registry gives no sha512 integrity for ${name}@${version}.`,
        );
      }
      return { name, version, tarball, integrity };
    },
    async download(resolved) {
      const response = await request(resolved.tarball, "application/octet-stream");
      if (!response.ok) {
        await response.body?.cancel();
        if (response.status === 404) {
          throw new AppError("not_found", `The tarball of ${resolved.name}@${resolved.version} is missing.`);
        }
        throw unreachable(registry, `it answered HTTP ${response.status} for the tarball`);
      }
      const bytes = await readCapped(response, limits.maxTarballBytes, "package tarball");
      if (!matchesIntegrity(bytes, resolved.integrity)) {
        throw new AppError(
          "integrity_mismatch",
          `The tarball of ${resolved.name}@${resolved.version} does not match its published sha512 integrity; nothing was installed.`,
        );
      }
      return bytes;
    },
  };
}
