/**
 * A plugin's URL segment and folder name: the package name without `@`, every run of characters
 * outside a-z, A-Z, 0-9 turned into one `-`, trimmed of `-`, lowercased
 * (`@svc/profanity-filter` → `svc-profanity-filter`). Not injective (`@a/b_c` and `a-b-c` meet),
 * so the host refuses a second plugin with a slug already taken.
 */
export function pluginSlug(name: string): string {
  return name
    .replace(/^@/, "")
    .replace(/[^A-Za-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .toLowerCase();
}

/**
 * Management routes live beside the plugin namespaces under `/api/plugins/`; these slugs name
 * them, so no plugin may take one.
 */
export const reservedSlugs: ReadonlySet<string> = new Set(["install", "uninstall", "reload"]);

/** The exact shape `pluginSlug` produces; anything else in a URL is not a plugin namespace. */
export const slugPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
