import { type Context, Hono } from "hono";
import { notFound } from "../errors.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { rawPath } from "../http/raw-path.ts";
import type { AppEnv } from "../http/types.ts";
import { readJson, readQuery } from "../http/validate.ts";
import { namespaceSlug } from "../plugins/dispatch.ts";
import type { PluginHost } from "../plugins/host.ts";
import { servePluginAsset } from "../plugins/ui-static.ts";
import { installBody, pluginDocs, toggleQuery, uninstallBody } from "./plugins-docs.ts";

/**
 * `/api/plugins` management. Registered before the namespace dispatcher, which is why
 * `install`, `uninstall` and `reload` are reserved slugs, and why `POST <slug>/enable|disable`
 * and `GET <slug>/ui/…` never reach a plugin.
 */
export function createPluginRoutes(deps: { plugins: PluginHost; docs: ApiDocs }) {
  const { plugins } = deps;
  deps.docs.add(...pluginDocs);
  const listing = async () => {
    const items = await plugins.list();
    return { items, total: items.length };
  };
  const toggle = (enabled: boolean) => async (c: Context<AppEnv>) => {
    const { name } = readQuery(c, toggleQuery);
    return c.json({ plugin: await plugins.setEnabled(c.req.param("slug") ?? "", enabled, name) });
  };

  return new Hono<AppEnv>()
    .get("/", async (c) => c.json(await listing()))
    .post("/install", async (c) => {
      const body = await readJson(c, installBody);
      const result = await plugins.install({
        name: body.npmName,
        version: body.version,
        enable: body.enable,
      });
      return c.json({ plugin: result.plugin }, result.created ? 201 : 200);
    })
    .post("/uninstall", async (c) => {
      const body = await readJson(c, uninstallBody);
      return c.json(await plugins.uninstall({ specifier: body.specifier, purge: body.purge }));
    })
    .post("/reload", async (c) => {
      await plugins.reload();
      return c.json(await listing());
    })
    .post("/:slug/enable", toggle(true))
    .post("/:slug/disable", toggle(false))
    .get("/:slug/ui/*", async (c) => {
      // The raw path, not Hono's decoded params: one value decides the plugin and the file.
      const path = rawPath(c.req.url);
      const slug = namespaceSlug(path);
      const prefix = `/api/plugins/${slug}/ui/`;
      const plugin = slug === undefined ? undefined : plugins.find(slug);
      if (!plugin || !path.startsWith(prefix)) throw notFound("No such plugin page or asset.");
      return servePluginAsset(plugin.dir, path.slice(prefix.length));
    });
}
