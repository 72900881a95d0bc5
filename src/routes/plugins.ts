import * as v from "valibot";
import { notFound } from "../errors.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { documentedRoutes } from "../http/documented-routes.ts";
import { rawPath } from "../http/raw-path.ts";
import { requestInfoOf } from "../http/request-info.ts";
import {
  installBody,
  installQuery,
  onePluginSchema,
  pluginListSchema,
  slugParams,
  toggleQuery,
  uninstallBody,
} from "../plugins/api-schemas.ts";
import type { PluginHost } from "../plugins/host.ts";
import { servePluginAsset } from "../plugins/ui-static.ts";
import { namespaceSlug } from "./plugin-namespace.ts";

/**
 * `/api/plugins` management. Registered before the namespace dispatcher, which is why
 * `install`, `uninstall` and `reload` are reserved slugs, and why `POST <slug>/enable|disable`
 * and `GET <slug>/ui/…` never reach a plugin.
 */
/** The types a plugin tarball may be sent as (each needs a CORS preflight from another origin). */
const tarballTypes = new Set(["application/gzip", "application/x-gzip", "application/octet-stream"]);

export function createPluginRoutes(deps: {
  plugins: PluginHost;
  docs: ApiDocs;
  bridgeScriptUrl?: () => string | Promise<string>;
}) {
  const { plugins } = deps;
  const listing = async () => {
    const items = await plugins.list();
    return { items, total: items.length };
  };
  const toggle = async (slug: string, enabled: boolean, name: string | undefined) => ({
    plugin: await plugins.setEnabled(slug, enabled, name),
  });

  return documentedRoutes(deps.docs, "/api/plugins", "Plugins")
    .get(
      "/",
      {
        summary: "Installed and listed plugins",
        description:
          "Every entry of the `plugins` setting in order (with its load error, if any), then plugin folders on disk that are not listed. Development copies have `dev: true` and the label `[DEV]`.",
        responses: { 200: { description: "The plugins", schema: pluginListSchema } },
      },
      async (c) => c.json(await listing()),
    )
    .post(
      "/install",
      {
        summary: "Install a plugin from the npm registry, or from a tarball sent as the body",
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
          "A tarball (npm pack output; Content-Type application/gzip or application/octet-stream, at most 10 MiB; ?enable=true to switch it on) is installed through the same checks, named by its package.json. From the registry: validates the name before any network request, resolves `version` (a version, range or dist-tag; default latest), verifies the tarball's sha512 integrity, extracts it without links or escaping paths, runs no scripts and installs no dependencies, then moves it into place atomically. The plugin is listed in `plugins` but stays in `disabled_plugins` unless `enable` is true. Errors: 400 invalid_package_name, 404 not_found, 409 install_in_progress or slug_taken, 422 unsafe_archive, invalid_manifest or package_too_large, 502 integrity_mismatch or registry_unreachable.",
        body: installBody,
        bodyTypes: [...tarballTypes],
        // A tarball is at most 10 MiB: it takes the import limit, not the JSON one.
        bodyKind: "import",
        query: installQuery,
        responses: {
          200: { description: "An installed copy was replaced", schema: onePluginSchema },
          201: { description: "Installed", schema: onePluginSchema },
        },
      },
      async (c) => {
        const body = c.req.valid("json");
        // No JSON body: a tarball came instead.
        if (body === undefined) {
          const { enable } = c.req.valid("query");
          const bytes = new Uint8Array(await c.req.arrayBuffer());
          const result = await plugins.installTarball({ bytes, enable: enable === "true" });
          return c.json({ plugin: result.plugin }, result.created ? 201 : 200);
        }
        const result = await plugins.install({
          name: body.npmName,
          version: body.version,
          enable: body.enable,
        });
        return c.json({ plugin: result.plugin }, result.created ? 201 : 200);
      },
    )
    .post(
      "/uninstall",
      {
        summary: "Uninstall a plugin",
        errors: ["invalid_package_name", "not_found"],
        description:
          "Removes the specifier from `plugins` and `disabled_plugins` and deletes its files. Its stored data is kept unless `purge` is true.",
        body: uninstallBody,
        responses: {
          200: { description: "Uninstalled", schema: v.object({ name: v.string(), purged: v.number() }) },
        },
      },
      async (c) => {
        const body = c.req.valid("json");
        return c.json(await plugins.uninstall({ specifier: body.specifier, purge: body.purge }));
      },
    )
    .post(
      "/reload",
      {
        summary: "Reload every plugin with its current code",
        description:
          "Re-imports rebuilt code (no module cache), runs setup again, and answers the new listing.",
        responses: { 200: { description: "The plugins after the reload", schema: pluginListSchema } },
      },
      async (c) => {
        await plugins.reload();
        return c.json(await listing());
      },
    )
    .post(
      "/:slug/enable",
      {
        summary: "Switch a plugin on",
        errors: ["ambiguous_slug"],
        description:
          "Removes it from `disabled_plugins` and lists it in `plugins` if needed, then reloads. Where several packages share the slug, `name` (the package name) says which; without it that is 409 ambiguous_slug. 404 not_found when no package matches.",
        params: slugParams,
        query: toggleQuery,
        responses: { 200: { description: "The plugin", schema: onePluginSchema } },
      },
      async (c) => c.json(await toggle(c.req.valid("param").slug, true, c.req.valid("query").name)),
    )
    .post(
      "/:slug/disable",
      {
        summary: "Switch a plugin off",
        errors: ["ambiguous_slug"],
        description:
          "Adds it to `disabled_plugins`: its hooks and routes stop; files and storage are kept. `name` and the errors are as for enable.",
        params: slugParams,
        query: toggleQuery,
        responses: { 200: { description: "The plugin", schema: onePluginSchema } },
      },
      async (c) => c.json(await toggle(c.req.valid("param").slug, false, c.req.valid("query").name)),
    )
    .get(
      "/:slug/ui/*",
      {
        summary: "A plugin UI page or asset",
        // The sandboxed page's own requests for its files come from an opaque origin, which no
        // browser sends a SameSite cookie from: they are the plugin's public code, with no data.
        access: "open",
        errors: ["invalid_path"],
        description:
          "Files under the plugin's dist/ui/, served with `Content-Security-Policy: sandbox allow-scripts` (an opaque origin: the page reaches the API only through the app's window.svc bridge). Open without a key, like the console's own files: they are the plugin's public code, and the sandboxed page's requests for them carry no cookie. HTML documents get svc's bridge script ahead of their own scripts. Every other method and path under /api/plugins/<slug>/ goes to that plugin's middleware.",
        params: slugParams,
        responses: { 200: { description: "The file", contentType: "text/html" } },
      },
      async (c) => {
        // The raw path, not Hono's decoded params: one value decides the plugin and the file.
        const path = rawPath(c.req.url);
        const slug = namespaceSlug(path);
        const prefix = `/api/plugins/${slug}/ui/`;
        const plugin = slug === undefined ? undefined : plugins.find(slug);
        if (!plugin || !path.startsWith(prefix)) throw notFound("No such plugin page or asset.");
        const asset = await servePluginAsset(plugin.dir, path.slice(prefix.length), {
          bridgeScriptUrl: await deps.bridgeScriptUrl?.(),
        });
        const info = requestInfoOf(c);
        if (info) info.publicAsset = true;
        return asset;
      },
    );
}
