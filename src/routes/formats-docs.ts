import * as v from "valibot";
import { appContextSchema } from "../formats/app-context.ts";
import {
  formatCreateSchema,
  formatLimits,
  formatListQuerySchema,
  formatMatchQuerySchema,
  formatPatchSchema,
  formatSchema,
} from "../formats/schemas.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { idParamsSchema } from "../http/params.ts";
import { pageSchema } from "../lists.ts";

const patternSyntax =
  "appPattern: alternatives separated by |, case-insensitive. `slack` or `app:slack` matches the app name " +
  "as whole words (`code` matches Visual Studio Code and Code.exe, not Xcode); `title:gmail` the window " +
  "title; `url:github.com` or `url:docs.google.com/document` a page's host (and subdomains, www. ignored) " +
  "and path prefix; `*` any context. No regular expressions. Match order: enabled formats only, the " +
  "user's own before built-ins, then higher priority, then older first.";

const page = pageSchema(formatSchema);

export function documentFormats(docs: ApiDocs): void {
  const tag = "Formats";
  const one = { description: "The format", schema: formatSchema };
  docs.add(
    {
      method: "get",
      path: "/api/formats",
      tag,
      summary: "List formats, built-in and the user's own",
      description: "search matches label, appPattern and instructions (a literal substring).",
      query: formatListQuerySchema,
      responses: { 200: { description: "One page", schema: page } },
    },
    {
      method: "get",
      path: "/api/formats/match",
      tag,
      summary: "The format for an app context",
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
    {
      method: "post",
      path: "/api/formats",
      tag,
      summary: "Add a format",
      errors: ["limit_exceeded"],
      description: `${patternSyntax} At most ${formatLimits.maxFormats} formats (413 limit_exceeded).`,
      body: formatCreateSchema,
      responses: { 201: { description: "Created", schema: formatSchema } },
    },
    {
      method: "get",
      path: "/api/formats/:id",
      tag,
      summary: "One format",
      params: idParamsSchema,
      responses: { 200: one },
    },
    {
      method: "patch",
      path: "/api/formats/:id",
      tag,
      summary: "Change a format (built-ins too)",
      description: "Fields left out stay as they are; style options are merged one by one.",
      params: idParamsSchema,
      body: formatPatchSchema,
      responses: { 200: one },
    },
    {
      method: "delete",
      path: "/api/formats/:id",
      tag,
      summary: "Delete one of the user's formats",
      errors: ["builtin_format"],
      description:
        "Built-ins cannot be deleted (409 builtin_format): disable them with enabled=false instead.",
      params: idParamsSchema,
      responses: { 204: { description: "Deleted" } },
    },
    {
      method: "post",
      path: "/api/formats/reset",
      tag,
      summary: "Restore the built-in formats",
      description:
        "Every built-in gets back its shipped label, pattern, instructions, style and priority and is enabled " +
        "again; the user's own formats are kept untouched.",
      responses: {
        200: { description: "How many built-ins were restored", schema: v.object({ restored: v.number() }) },
      },
    },
  );
}
