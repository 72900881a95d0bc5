import * as v from "valibot";
import type { RouteDoc } from "../http/api-docs.ts";
import { describes } from "../http/api-docs.ts";
import type { PluginStatus } from "../plugins/types.ts";

export const installBody = v.object({
  npmName: v.pipe(v.string("npmName must be a string"), v.maxLength(300, "npmName is too long")),
  version: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(100))),
  enable: v.optional(v.boolean("enable must be true or false")),
});

export const uninstallBody = v.object({
  specifier: v.pipe(v.string("specifier must be a string"), v.minLength(1), v.maxLength(300)),
  purge: v.optional(v.boolean("purge must be true or false")),
});

export const toggleQuery = v.object({
  name: v.optional(v.pipe(v.string("name must be a string"), v.minLength(1), v.maxLength(300))),
});

const failure = v.object({ stage: v.string(), message: v.string() });

const page = v.object({ id: v.string(), title: v.string(), entry: v.string(), url: v.string() });

export const pluginStatusSchema = describes<PluginStatus>()(
  v.object({
    name: v.string(),
    specifier: v.string(),
    slug: v.string(),
    version: v.nullable(v.string()),
    description: v.nullable(v.string()),
    displayName: v.nullable(v.string()),
    icon: v.nullable(v.string()),
    listed: v.boolean(),
    enabled: v.boolean(),
    installed: v.boolean(),
    loaded: v.boolean(),
    dev: v.boolean(),
    label: v.nullable(v.string()),
    options: v.record(v.string(), v.unknown()),
    pages: v.array(page),
    hooks: v.array(v.string()),
    routes: v.boolean(),
    error: v.nullable(failure),
  }),
);

const listSchema = v.object({ items: v.array(pluginStatusSchema), total: v.number() });
const oneSchema = v.object({ plugin: pluginStatusSchema });
const slugParams = v.object({ slug: v.string() });
const tag = "Plugins";

export const pluginDocs: RouteDoc[] = [
  {
    method: "get",
    path: "/api/plugins",
    tag,
    summary: "Installed and listed plugins",
    description:
      "Every entry of the `plugins` setting in order (with its load error, if any), then plugin folders on disk that are not listed. Development copies have `dev: true` and the label `[DEV]`.",
    responses: { 200: { description: "The plugins", schema: listSchema } },
  },
  {
    method: "post",
    path: "/api/plugins/install",
    tag,
    summary: "Install a plugin from the npm registry",
    errors: [
      "invalid_package_name",
      "invalid_version",
      "not_found",
      "install_in_progress",
      "slug_taken",
      "invalid_manifest",
      "package_too_large",
      "unsafe_archive",
      "registry_unreachable",
      "integrity_mismatch",
      "untrusted_tarball_url",
      "installer_unavailable",
    ],
    description:
      "Validates the name before any network request, resolves `version` (a version, range or dist-tag; default latest), verifies the tarball's sha512 integrity, extracts it without links or escaping paths, runs no scripts and installs no dependencies, then moves it into place atomically. The plugin is listed in `plugins` but stays in `disabled_plugins` unless `enable` is true. Errors: 400 invalid_package_name, 404 not_found, 409 install_in_progress or slug_taken, 422 unsafe_archive, invalid_manifest or package_too_large, 502 integrity_mismatch or registry_unreachable.",
    body: installBody,
    responses: {
      200: { description: "An installed copy was replaced", schema: oneSchema },
      201: { description: "Installed", schema: oneSchema },
    },
  },
  {
    method: "post",
    path: "/api/plugins/uninstall",
    tag,
    summary: "Uninstall a plugin",
    errors: ["invalid_package_name", "not_found"],
    description:
      "Removes the specifier from `plugins` and `disabled_plugins` and deletes its files. Its stored data is kept unless `purge` is true.",
    body: uninstallBody,
    responses: {
      200: { description: "Uninstalled", schema: v.object({ name: v.string(), purged: v.number() }) },
    },
  },
  {
    method: "post",
    path: "/api/plugins/reload",
    tag,
    summary: "Reload every plugin with its current code",
    description: "Re-imports rebuilt code (no module cache), runs setup again, and answers the new listing.",
    responses: { 200: { description: "The plugins after the reload", schema: listSchema } },
  },
  {
    method: "post",
    path: "/api/plugins/:slug/enable",
    tag,
    summary: "Switch a plugin on",
    errors: ["ambiguous_slug"],
    description:
      "Removes it from `disabled_plugins` and lists it in `plugins` if needed, then reloads. Where several packages share the slug, `name` (the package name) says which; without it that is 409 ambiguous_slug. 404 not_found when no package matches.",
    params: slugParams,
    query: toggleQuery,
    responses: { 200: { description: "The plugin", schema: oneSchema } },
  },
  {
    method: "post",
    path: "/api/plugins/:slug/disable",
    tag,
    summary: "Switch a plugin off",
    errors: ["ambiguous_slug"],
    description:
      "Adds it to `disabled_plugins`: its hooks and routes stop; files and storage are kept. `name` and the errors are as for enable.",
    params: slugParams,
    query: toggleQuery,
    responses: { 200: { description: "The plugin", schema: oneSchema } },
  },
  {
    method: "get",
    path: "/api/plugins/:slug/ui/*",
    tag,
    summary: "A plugin UI page or asset",
    errors: ["invalid_path"],
    description:
      "Files under the plugin's dist/ui/, served with `Content-Security-Policy: sandbox allow-scripts` (an opaque origin: the page reaches the API only through the app's window.svc bridge). Every other method and path under /api/plugins/<slug>/ goes to that plugin's middleware.",
    params: slugParams,
    responses: { 200: { description: "The file", contentType: "text/html" } },
  },
];
