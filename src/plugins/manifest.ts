import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";
import { reasonOf } from "../errors.ts";
import { describeIssues } from "../validation.ts";
import { packageNameProblem } from "./package-name.ts";

/** A page a plugin adds to the app, as listed by `GET /api/plugins`. */
export interface PluginPage {
  id: string;
  title: string;
  /** Path of the built HTML inside the package, under `dist/ui/`. */
  entry: string;
}

/** The validated parts of a plugin's `package.json` the host uses. */
export interface PluginManifest {
  name: string;
  version: string;
  description: string | null;
  main: string;
  displayName: string | null;
  icon: string | null;
  pages: PluginPage[];
  /**
   * Routes of the plugin's namespace a dictate key may call (SVC_AUTH keys): "METHOD /path" relative
   * to `/api/plugins/<slug>`, a trailing `*` matching the rest. Every other route is admin-only.
   */
  dictateRoutes: string[];
  /** Set by `svc plugins link` on development copies: the folder the copy was made from. */
  devSource: string | null;
  /** Package names under dependencies, optionalDependencies, bundleDependencies, peerDependencies. */
  dependencies: string[];
}

// No empty, "." or ".." segment, no dotfiles, no backslash, colon or other surprises.
const segment = /^[A-Za-z0-9_@+~-][A-Za-z0-9._@+~-]*$/;

/** `path` with a leading "./" removed, when every segment is plain; otherwise undefined. */
export function normaliseRelativePath(path: string): string | undefined {
  const trimmed = path.startsWith("./") ? path.slice(2) : path;
  if (trimmed.length === 0 || trimmed.length > 255) return undefined;
  const parts = trimmed.split("/");
  return parts.every((part) => segment.test(part)) ? trimmed : undefined;
}

const relativePath = (what: string) =>
  v.pipe(
    v.string(`${what} must be a string`),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const normalised = normaliseRelativePath(dataset.value);
      if (normalised === undefined) {
        addIssue({
          message: `${what} must be a plain relative path inside the package (no "..", no leading "/")`,
        });
        return NEVER;
      }
      return normalised;
    }),
  );

const pageSchema = v.object({
  id: v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9-]{0,63}$/, "page id must be 1-64 of a-z, 0-9 and -")),
  title: v.pipe(v.string(), v.trim(), v.minLength(1, "page title is empty"), v.maxLength(80)),
  entry: v.pipe(
    relativePath("page entry"),
    v.check(
      (entry) => entry.startsWith("dist/ui/") && entry.endsWith(".html"),
      "page entry must be an .html file under dist/ui/",
    ),
  ),
});

/** The plugin manifest, under `svc` (svc's key) or `freestyle` (Freestyle's, read as published). */
const manifestFieldSchema = v.object(
  {
    displayName: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(80))),
    icon: v.optional(v.pipe(v.string(), v.maxLength(64))),
    dictateRoutes: v.optional(
      v.pipe(
        v.array(
          v.pipe(
            v.string(),
            v.regex(
              /^(GET|POST|PUT|PATCH|DELETE) \/[A-Za-z0-9._~/-]*\*?$/,
              'each dictateRoutes entry is "METHOD /path" (GET, POST, PUT, PATCH or DELETE; a trailing * matches the rest)',
            ),
          ),
        ),
        v.maxLength(50, "at most 50 dictateRoutes"),
      ),
    ),
    contributes: v.optional(
      v.object({
        pages: v.optional(
          v.pipe(
            v.array(pageSchema),
            v.maxLength(20, "at most 20 pages"),
            v.check(
              (pages) => new Set(pages.map((page) => page.id)).size === pages.length,
              "page ids must be unique",
            ),
          ),
        ),
      }),
    ),
  },
  "the plugin manifest must be an object",
);

const dependencyMap = v.optional(v.union([v.record(v.string(), v.unknown()), v.array(v.string())]));

export const manifestSchema = v.object({
  name: v.pipe(
    v.string("name must be a string"),
    v.check((name) => packageNameProblem(name) === undefined, "name is not a valid plugin package name"),
  ),
  version: v.pipe(
    v.string("version must be a string"),
    v.regex(
      /^\d{1,9}\.\d{1,9}\.\d{1,9}(?:-[0-9A-Za-z.-]{1,64})?(?:\+[0-9A-Za-z.-]{1,64})?$/,
      "version must be a semver version such as 1.2.3",
    ),
  ),
  description: v.optional(v.pipe(v.string(), v.maxLength(1000))),
  type: v.literal("module", 'type must be "module": plugins are ES modules'),
  main: v.pipe(
    relativePath("main"),
    v.check((main) => /\.m?js$/.test(main), "main must name a .js or .mjs file, e.g. dist/index.js"),
  ),
  svc: v.optional(manifestFieldSchema),
  // Read only when `svc` is absent (svc's key wins), so a package carrying both is judged by svc's.
  freestyle: v.optional(v.unknown()),
  svcDev: v.optional(v.object({ source: v.string() })),
  dependencies: dependencyMap,
  optionalDependencies: dependencyMap,
  bundleDependencies: dependencyMap,
  bundledDependencies: dependencyMap,
  peerDependencies: dependencyMap,
});

/** Thrown when a package is not a usable svc plugin; the message says what to fix. */
export class ManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ManifestError";
  }
}

const depNames = (value: unknown): string[] =>
  Array.isArray(value) ? value.map(String) : value && typeof value === "object" ? Object.keys(value) : [];

/**
 * The message for a package.json without an `svc` field: valibot's would read `Invalid key:
 * Expected "svc"`. A manifest carried under another name (a plugin written for another host) is
 * named, so the author knows what to rename.
 */
function missingManifest(json: Record<string, unknown>): string | undefined {
  if (Object.hasOwn(json, "svc") || Object.hasOwn(json, "freestyle")) return undefined;
  const elsewhere = Object.entries(json).find(
    ([, value]) =>
      typeof value === "object" &&
      value !== null &&
      !Array.isArray(value) &&
      ("contributes" in value || "icon" in value),
  );
  const hint = elsewhere
    ? `; this package.json has one under "${elsewhere[0]}": rename that field to "svc"`
    : ': add "svc": {} (with contributes.pages for UI pages) to package.json';
  return `the "svc" field (the plugin manifest) is missing${hint}`;
}

/** Freestyle's manifest key, checked as svc's is; undefined when absent. */
function freestyleField(value: unknown): v.InferOutput<typeof manifestFieldSchema> | undefined {
  if (value === undefined) return undefined;
  const result = v.safeParse(manifestFieldSchema, value);
  if (result.success) return result.output;
  const issues = describeIssues(result.issues).map((issue) =>
    issue.path ? `freestyle.${issue.path}: ${issue.message}` : `freestyle: ${issue.message}`,
  );
  throw new ManifestError(`invalid package.json: ${issues.join("; ")}`);
}

/** Validates parsed `package.json` content. */
export function parseManifest(json: unknown): PluginManifest {
  const missing =
    typeof json === "object" && json !== null && !Array.isArray(json)
      ? missingManifest(json as Record<string, unknown>)
      : undefined;
  const result = v.safeParse(manifestSchema, json);
  if (!result.success) {
    const issues = describeIssues(result.issues).map((issue) =>
      issue.path ? `${issue.path}: ${issue.message}` : issue.message,
    );
    throw new ManifestError(`invalid package.json: ${issues.join("; ")}`);
  }
  const out = result.output;
  // svc's own key wins; Freestyle's is read as published, so its plugins install unedited.
  const field = out.svc ?? freestyleField(out.freestyle);
  if (!field) throw new ManifestError(`invalid package.json: ${missing}`);
  const deps = [
    out.dependencies,
    out.optionalDependencies,
    out.bundleDependencies,
    out.bundledDependencies,
    out.peerDependencies,
  ].flatMap(depNames);
  return {
    name: out.name,
    version: out.version,
    description: out.description ?? null,
    main: out.main,
    displayName: field.displayName || null,
    icon: field.icon ?? null,
    pages: field.contributes?.pages ?? [],
    dictateRoutes: field.dictateRoutes ?? [],
    devSource: out.svcDev?.source ?? null,
    dependencies: [...new Set(deps)],
  };
}

const maxManifestBytes = 1024 * 1024;

/** Reads and validates `<dir>/package.json`. */
export async function readManifest(dir: string): Promise<PluginManifest> {
  const path = join(dir, "package.json");
  let text: string;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new ManifestError("package.json is not a file");
    if (info.size > maxManifestBytes) throw new ManifestError("package.json is larger than 1 MiB");
    text = await readFile(path, "utf8");
  } catch (error) {
    if (error instanceof ManifestError) throw error;
    throw new ManifestError(`cannot read package.json: ${reasonOf(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ManifestError("package.json is not valid JSON");
  }
  return parseManifest(json);
}

/** Whether a manifest marks `METHOD /path` (relative to its namespace) for dictate keys. */
export function marksForDictate(
  manifest: Pick<PluginManifest, "dictateRoutes">,
  method: string,
  path: string,
) {
  const wanted = method === "HEAD" ? "GET" : method;
  return manifest.dictateRoutes.some((entry) => {
    const space = entry.indexOf(" ");
    if (entry.slice(0, space) !== wanted) return false;
    const pattern = entry.slice(space + 1);
    return pattern.endsWith("*") ? path.startsWith(pattern.slice(0, -1)) : path === pattern;
  });
}
