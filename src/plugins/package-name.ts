import { AppError } from "../errors.ts";
import { pluginSlug, reservedSlugs } from "./slug.ts";

// Stricter than npm: lowercase, URL-safe, no leading dot/underscore/dash in scope or name.
const namePattern = /^(?:@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/;
const forbidden = new Set(["node_modules", "favicon.ico", "__proto__", "constructor", "prototype"]);
export const maxNameLength = 214;

/** Why `name` cannot be a plugin package name, or undefined when it can. */
export function packageNameProblem(name: unknown): string | undefined {
  if (typeof name !== "string") return "the package name must be a string";
  if (name.length === 0) return "the package name is empty";
  if (name.length > maxNameLength) return `the package name is longer than ${maxNameLength} characters`;
  if (!namePattern.test(name)) {
    return "a package name is lowercase letters, digits, '.', '_' and '-' with an optional @scope/, each part starting with a letter or digit";
  }
  const segments = name.replace(/^@/, "").split("/");
  if (segments.some((segment) => segment === "." || segment === ".." || forbidden.has(segment))) {
    return `"${name}" is not allowed as a package name`;
  }
  const slug = pluginSlug(name);
  if (slug === "") return "the package name has no letters or digits";
  if (reservedSlugs.has(slug)) return `"${slug}" is reserved for svc's own routes under /api/plugins/`;
  return undefined;
}

/** Throws 400 `invalid_package_name` before anything touches the network or the disk. */
export function assertPackageName(name: unknown): asserts name is string {
  const problem = packageNameProblem(name);
  if (problem) {
    throw new AppError("invalid_package_name", `Invalid plugin package name: ${problem}.`, {
      details: { name: typeof name === "string" ? name.slice(0, 300) : null },
    });
  }
}
