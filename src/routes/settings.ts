import { type JsonSchema, toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { engineIds } from "../dictation/engines/ids.ts";
import { engineOwning, engines } from "../dictation/engines/registry.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { documentedRoutes } from "../http/documented-routes.ts";
import {
  type SettingDef,
  type SettingKey,
  settingGroups,
  settingKeys,
  settingsCatalog,
} from "../settings/catalog.ts";
import type { SettingsService } from "../settings/service.ts";
import { secretMask, settingViewSchema } from "../settings/service.ts";
import { jsonObject } from "../validation.ts";

const keyParams = v.object({
  key: v.pipe(v.string(), v.minLength(1), v.maxLength(100, "key must be at most 100 characters")),
});
const putBody = v.object({ value: v.unknown() });
const patchBody = v.object({
  values: v.optional(jsonObject("values must be an object of setting keys and their values")),
  reset: v.optional(
    v.pipe(
      v.array(v.string("reset must list setting keys"), "reset must be a list of setting keys"),
      v.maxLength(400, "reset may list at most 400 keys"),
    ),
  ),
});
const updatedSchema = v.object({ items: v.array(settingViewSchema), cleared: v.array(v.string()) });

/** What a form needs of a setting's JSON Schema (OpenAPI 3.0's dialect), beside the rest of it. */
const settingSchemaSchema = v.looseObject({
  type: v.optional(v.string()),
  format: v.optional(v.string()),
  enum: v.optional(v.array(v.unknown())),
  /** Values worth offering where any matching one is accepted (the language setting's codes). */
  examples: v.optional(v.array(v.unknown())),
  nullable: v.optional(v.boolean()),
  minimum: v.optional(v.number()),
  maximum: v.optional(v.number()),
  minLength: v.optional(v.number()),
  maxLength: v.optional(v.number()),
});

const catalogEntrySchema = v.object({
  key: v.string(),
  /** What a person calls it: the field's label, and the subject of the API's messages about it. */
  label: v.string(),
  /** What a number counts ("ms", "seconds", "days"), when it is a number of something. */
  unit: v.optional(v.string()),
  description: v.string(),
  default: v.unknown(),
  secret: v.boolean(),
  group: v.string(),
  advanced: v.boolean(),
  schema: settingSchemaSchema,
});

const catalogSchema = v.object({
  /** In the order a person reads them: speech, each engine's own, then the rest. */
  groups: v.array(v.object({ id: v.string(), title: v.string() })),
  items: v.array(catalogEntrySchema),
});

/** Where a setting is filed: its catalog group, or for an engine's own, the engine's id. */
function groupOf(key: SettingKey): string {
  const { group } = settingsCatalog[key] as SettingDef;
  // test/settings/catalog.test.ts holds every "engine" setting to exactly one engine.
  return group === "engine" ? (engineOwning(key) ?? group) : group;
}

function describeGroups(used: ReadonlySet<string>) {
  const [speech, ...rest] = Object.entries(settingGroups);
  const engineGroups = engineIds.map((id) => [id, engines[id].title] as const);
  return [...(speech ? [speech] : []), ...engineGroups, ...rest]
    .filter(([id]) => used.has(id))
    .map(([id, title]) => ({ id, title }));
}

function describeCatalog() {
  const items = settingKeys.map((key) => {
    const def = settingsCatalog[key] as SettingDef;
    const schema: JsonSchema = toJsonSchema(def.schema, { target: "openapi-3.0", errorMode: "ignore" });
    return {
      key,
      label: def.label,
      ...(def.unit === undefined ? {} : { unit: def.unit }),
      description: def.description,
      default: def.secret ? secretMask(false) : def.default,
      secret: def.secret === true,
      group: groupOf(key),
      advanced: def.advanced === true,
      schema,
    };
  });
  return { groups: describeGroups(new Set(items.map((item) => item.group))), items };
}

export function createSettingsRoutes(deps: {
  settings: SettingsService;
  docs: ApiDocs;
  /** The languages the selected engine's active model speaks: the `language` setting's examples. */
  languages: () => readonly string[];
}) {
  const { settings } = deps;
  const catalog = describeCatalog();
  // The language choices follow the engine: sphinx offers English, whisper's multilingual models 99.
  const withLanguages = () => ({
    ...catalog,
    items: catalog.items.map((item) =>
      item.key === "language"
        ? { ...item, schema: { ...item.schema, examples: ["auto", ...deps.languages()] } }
        : item,
    ),
  });

  return documentedRoutes(deps.docs, "/api/settings", "Settings")
    .get(
      "/",
      {
        summary: "All settings",
        access: "dictate",
        description:
          'Every known setting (its stored value or default) and every stored client preference. Secret settings read as {"set": true|false}.',
        responses: { 200: { description: "Map of key to value", schema: v.record(v.string(), v.unknown()) } },
      },
      (c) => c.json(settings.list()),
    )
    .patch(
      "/",
      {
        summary: "Set or reset several settings at once",
        errors: ["invalid_setting", "invalid_setting_key", "too_many_settings"],
        description:
          'Body {"values": {key: value, …}, "reset": [key, …]}: what the console\'s Save sends for a group. Every value is checked as PUT /api/settings/:key checks it before any is stored; when one or more are refused nothing is stored, and the 400 invalid_setting names each by its label, with `details.settings` listing {key, message, issues, accepted} per refused setting. `reset` puts known settings back to their defaults and deletes client preferences. Publishes settings.changed (settings.deleted for a preference) per key. A base URL moved to another origin removes its API key, listed in `cleared`.',
        body: patchBody,
        responses: { 200: { description: "Each setting named, as stored now", schema: updatedSchema } },
      },
      (c) => c.json(settings.update(c.req.valid("json"))),
    )
    .get(
      "/schema",
      {
        summary: "Catalog of known settings",
        access: "dictate",
        description:
          "Each known key with its label (what the console and the API's messages call it), unit (what a number counts, where it counts something), description, default, secret flag, group (one of `groups`, in the order to show them; an engine's own settings are grouped under its id), whether it is an advanced one (a tuning or protection limit), and JSON Schema. The `language` setting's examples are \"auto\" and the languages of the selected engine's active model. Other keys (1-100 chars of a-z 0-9 _ . : -) are stored as opaque client preferences, at most 16 KiB of JSON each and 200 in all.",
        responses: {
          200: { description: "The catalog", schema: catalogSchema },
        },
      },
      (c) => c.json(withLanguages()),
    )
    .get(
      "/:key",
      {
        summary: "One setting",
        access: "dictate",
        errors: ["invalid_setting_key"],
        params: keyParams,
        responses: { 200: { description: "The setting", schema: settingViewSchema } },
      },
      (c) => c.json(settings.view(c.req.valid("param").key)),
    )
    .put(
      "/:key",
      {
        summary: "Set a setting",
        errors: ["invalid_setting", "invalid_setting_key", "too_many_settings"],
        description:
          'Body {"value": <any JSON>}. Known keys are validated (400 invalid_setting); publishes settings.changed. An API key belongs to the origin of the base URL it is sent to: a base URL (llm_base_url, remote_stt_base_url) set to another origin removes its key, and the answer lists it in `cleared` (e.g. ["llm_api_key"]).',
        params: keyParams,
        body: putBody,
        responses: { 200: { description: "The stored setting", schema: settingViewSchema } },
      },
      (c) => c.json(settings.set(c.req.valid("param").key, c.req.valid("json").value)),
    )
    .delete(
      "/:key",
      {
        summary: "Reset a setting to its default, or delete a client preference",
        description:
          "Resetting a base URL (llm_base_url, remote_stt_base_url) also removes its API key, announced by settings.changed.",
        errors: ["invalid_setting_key"],
        params: keyParams,
        responses: { 204: { description: "Reset or deleted" } },
      },
      (c) => {
        settings.reset(c.req.valid("param").key);
        return c.body(null, 204);
      },
    );
}
