// The plugin management API's request and response schemas (routes/plugins.ts declares the routes).
import * as v from "valibot";
import { describes } from "../validation.ts";
import type { PluginStatus } from "./types.ts";

export const installBody = v.object({
  npmName: v.pipe(v.string("npmName must be a string"), v.maxLength(300, "npmName is too long")),
  version: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(100))),
  enable: v.optional(v.boolean("enable must be true or false")),
});

export const installQuery = v.object({
  enable: v.optional(v.picklist(["true", "false"], 'enable must be "true" or "false"')),
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
    ignoredHooks: v.array(v.string()),
    routes: v.boolean(),
    error: v.nullable(failure),
  }),
);

export const pluginListSchema = v.object({ items: v.array(pluginStatusSchema), total: v.number() });
export const onePluginSchema = v.object({ plugin: pluginStatusSchema });
export const slugParams = v.object({ slug: v.string() });
