import * as v from "valibot";
import { withCleaned } from "../desktop/answers.ts";
import { languageSchema } from "../dictation/language.ts";
import type { PipelineResult, TextPipeline } from "../dictation/text/pipeline.ts";
import { AppError } from "../errors.ts";
import { appContextSchema, parseAppContext } from "../formats/app-context.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { documentedRoutes } from "../http/documented-routes.ts";
import { abortReport, type PipelineEvent } from "../plugins/pipeline-events.ts";
import { describes } from "../validation.ts";

/** Longest text accepted, in characters: about an hour of dictation. */
export const maxPostProcessChars = 50_000;

const bodySchema = v.object({
  text: v.string("text must be a string"),
  appContext: v.optional(v.nullable(v.union([appContextSchema, v.string()]))),
  language: v.optional(v.nullable(languageSchema)),
});

const resultSchema = describes<PipelineResult>()(
  v.object({
    text: v.string(),
    raw: v.string(),
    deterministic: v.string(),
    stages: v.object({
      cleanup: v.object({
        mode: v.picklist(["off", "basic", "llm"]),
        text: v.string(),
        fallback: v.optional(v.object({ reason: v.string(), detail: v.string() })),
      }),
      dictionary: v.object({ text: v.string(), replacements: v.number() }),
      plugins: v.object({
        text: v.string(),
        errors: v.array(v.object({ plugin: v.string(), hook: v.string(), message: v.string() })),
      }),
    }),
    timings: v.object({
      cleanup: v.number(),
      dictionary: v.number(),
      plugins: v.number(),
      total: v.number(),
    }),
    format: v.nullable(v.object({ id: v.number(), label: v.string() })),
    disposition: v.picklist(["deliver", "suppressed", "aborted"]),
    reason: v.nullable(v.string()),
    consumedBy: v.nullable(v.string()),
    finalBy: v.nullable(v.string()),
    mode: v.picklist(["paste", "clipboard", "none"]),
  }),
);

export function createPostProcessRoutes(deps: {
  pipeline: TextPipeline;
  docs: ApiDocs;
  /** SVC_FREESTYLE_DESKTOP=1: the answer also carries `cleaned`, which the desktop app pastes. */
  cleaned?: boolean;
  /** An abort is told to the plugins' event hooks (with its reason) and the bus (without). */
  notify?(event: PipelineEvent): void;
  publish?(type: "pipeline.error", data: Record<string, unknown>): void;
}) {
  return documentedRoutes(deps.docs, "/api/post-process", "Dictation").post(
    "/",
    {
      summary: "Run the text pipeline (cleanup, dictionary, plugins) on a transcript",
      access: "dictate",
      errors: ["text_too_long", "invalid_app_context"],
      description: `For clients with their own speech engine. \`appContext\` is {app,title,url} or an app name; text over ${maxPostProcessChars} characters is refused with 413. The x-app-context header is used when the body has no appContext.`,
      body: bodySchema,
      responses: {
        200: {
          description: "The finished text and each stage's output",
          schema: deps.cleaned
            ? v.object({
                ...resultSchema.entries,
                cleaned: v.pipe(
                  v.string(),
                  v.description('the text to paste: `text` when delivered, else ""'),
                ),
              })
            : resultSchema,
        },
      },
    },
    async (c) => {
      const body = c.req.valid("json");
      if (body.text.length > maxPostProcessChars) {
        throw new AppError(
          "text_too_long",
          `text is ${body.text.length} characters; the limit is ${maxPostProcessChars}.`,
        );
      }
      const appContext = parseAppContext(body.appContext ?? c.req.header("x-app-context"));
      const language = body.language && body.language !== "auto" ? body.language : null;
      const dictation = deps.pipeline.newDictation();
      const result = await deps.pipeline.run({
        text: body.text,
        appContext,
        language,
        signal: c.req.raw.signal,
        dictation,
      });
      const aborted = abortReport(dictation.outcome());
      if (aborted) {
        deps.notify?.(aborted.event);
        deps.publish?.("pipeline.error", aborted.bus);
      }
      return c.json(deps.cleaned ? withCleaned(result, c.req.header("origin") ?? null) : result);
    },
  );
}
