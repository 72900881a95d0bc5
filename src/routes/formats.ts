import * as v from "valibot";
import type { FormatsRepo } from "../db/formats-repo.ts";
import { AppError, notFound } from "../errors.ts";
import type { EventBus } from "../events.ts";
import { appContextSchema, parseAppContext } from "../formats/app-context.ts";
import { builtinFormats } from "../formats/builtins.ts";
import type { FormatMatcher } from "../formats/matcher.ts";
import {
  formatCreateSchema,
  formatLimits,
  formatListQuerySchema,
  formatMatchQuerySchema,
  formatPatchSchema,
  formatSchema,
} from "../formats/schemas.ts";
import type { Format, FormatInput } from "../formats/types.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { documentedRoutes } from "../http/documented-routes.ts";
import { idParamsSchema } from "../http/params.ts";
import { pageSchema } from "../lists.ts";

export interface FormatsRouteDeps {
  formats: FormatsRepo;
  formatMatcher: FormatMatcher;
  events: EventBus;
  docs: ApiDocs;
}

type FormatPatch = Partial<Omit<FormatInput, "style">> & {
  style?: Partial<FormatInput["style"]> | undefined;
};

/** PATCH semantics: fields left out stay, style options merge one by one. */
function applyPatch(current: Format, patch: FormatPatch): FormatInput {
  const { label, appPattern, instructions, enabled, priority } = { ...current, ...definedOnly(patch) };
  return { label, appPattern, instructions, enabled, priority, style: { ...current.style, ...patch.style } };
}

const definedOnly = <T extends object>(value: T): Partial<T> =>
  Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;

const one = { description: "The format", schema: formatSchema };

const patternSyntax =
  "appPattern: alternatives separated by |, case-insensitive. `slack` or `app:slack` matches the app name " +
  "as whole words (`code` matches Visual Studio Code and Code.exe, not Xcode); `title:gmail` the window " +
  "title; `url:github.com` or `url:docs.google.com/document` a page's host (and subdomains, www. ignored) " +
  "and path prefix; `*` any context. No regular expressions. Match order: enabled formats only, the " +
  "user's own before built-ins, then higher priority, then older first.";

const page = pageSchema(formatSchema);

/** `/api/formats`: output rules matched to the app being dictated into. Changes publish `formats.changed`. */
export function createFormatsRoutes(deps: FormatsRouteDeps) {
  const { formats, formatMatcher, events } = deps;
  const changed = (action: string, data: Record<string, unknown> = {}) =>
    events.publish("formats.changed", { action, ...data });
  const found = (id: number) => formats.get(id) ?? missing(id);

  return documentedRoutes(deps.docs, "/api/formats", "Formats")
    .get(
      "/",
      {
        summary: "List formats, built-in and the user's own",
        access: "dictate",
        description: "search matches label, appPattern and instructions (a literal substring).",
        query: formatListQuerySchema,
        responses: { 200: { description: "One page", schema: page } },
      },
      (c) => c.json(formats.list(c.req.valid("query"))),
    )
    .get(
      "/match",
      {
        summary: "The format for an app context",
        access: "dictate",
        errors: ["invalid_app_context"],
        description:
          "Reads the x-app-context header: JSON {app?, title?, url?} or a bare app name, percent-encoded when " +
          "not ASCII (malformed JSON is 400 invalid_app_context). Without the header, app/title/url query " +
          `parameters are used. Answers {format, context}; format is null when nothing matches. ${patternSyntax}`,
        query: formatMatchQuerySchema,
        responses: {
          200: {
            description: "The match",
            schema: v.object({ format: v.nullable(formatSchema), context: v.nullable(appContextSchema) }),
          },
        },
      },
      (c) => {
        const header = c.req.header("x-app-context");
        const context = parseAppContext(header ?? c.req.valid("query"));
        return c.json({ format: formatMatcher.match(context), context });
      },
    )
    .post(
      "/reset",
      {
        summary: "Restore the built-in formats",
        description:
          "Every built-in gets back its shipped label, pattern, instructions, style and priority and is enabled " +
          "again; the user's own formats are kept untouched.",
        responses: {
          200: {
            description: "How many built-ins were restored",
            schema: v.object({ restored: v.number() }),
          },
        },
      },
      (c) => {
        const restored = formats.resetBuiltins(builtinFormats);
        changed("reset");
        return c.json({ restored });
      },
    )
    .get(
      "/:id",
      {
        summary: "One format",
        access: "dictate",
        params: idParamsSchema,
        responses: { 200: one },
      },
      (c) => c.json(found(c.req.valid("param").id)),
    )
    .post(
      "/",
      {
        summary: "Add a format",
        errors: ["limit_exceeded"],
        description: `${patternSyntax} At most ${formatLimits.maxFormats} formats (413 limit_exceeded).`,
        body: formatCreateSchema,
        responses: { 201: { description: "Created", schema: formatSchema } },
      },
      (c) => {
        const input = c.req.valid("json");
        if (formats.count() >= formatLimits.maxFormats) {
          throw new AppError("limit_exceeded", `There are already ${formatLimits.maxFormats} formats.`);
        }
        const format = formats.create(input);
        changed("created", { id: format.id });
        return c.json(format, 201, { Location: `/api/formats/${format.id}` });
      },
    )
    .patch(
      "/:id",
      {
        summary: "Change a format (built-ins too)",
        description: "Fields left out stay as they are; style options are merged one by one.",
        params: idParamsSchema,
        body: formatPatchSchema,
        responses: { 200: one },
      },
      (c) => {
        const { id } = c.req.valid("param");
        const patch = c.req.valid("json");
        const format = formats.update(id, applyPatch(found(id), patch)) ?? missing(id);
        changed("updated", { id });
        return c.json(format);
      },
    )
    .delete(
      "/:id",
      {
        summary: "Delete one of the user's formats",
        errors: ["builtin_format"],
        description:
          "Built-ins cannot be deleted (409 builtin_format): disable them with enabled=false instead.",
        params: idParamsSchema,
        responses: { 204: { description: "Deleted" } },
      },
      (c) => {
        const { id } = c.req.valid("param");
        if (found(id).isBuiltin) {
          throw new AppError("builtin_format", `Format ${id} is built in and cannot be deleted.`, {
            details: {
              id,
              hint: 'Disable it with PATCH {"enabled": false}; POST /api/formats/reset restores it.',
            },
          });
        }
        formats.remove(id);
        changed("deleted", { id });
        return c.body(null, 204);
      },
    );
}

function missing(id: number): never {
  throw notFound(`No format has id ${id}.`, { id });
}
