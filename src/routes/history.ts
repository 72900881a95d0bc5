import type { Context } from "hono";
import * as v from "valibot";
import { historyItemSchema } from "../history/items.ts";
import {
  historyIdParamsSchema,
  historyListQuerySchema,
  historyStatsQuerySchema,
  historyStatsSchema,
} from "../history/schemas.ts";
import type { HistoryService } from "../history/service.ts";
import type { ApiDocs } from "../http/api-docs.ts";
import { documentedRoutes } from "../http/documented-routes.ts";
import { requestInfoOf } from "../http/request-info.ts";
import type { AppEnv } from "../http/types.ts";
import { pageSchema } from "../lists.ts";

/** A dictate key sees and deletes only what it made; an admin (or a trusted client) sees all. */
function ownOnly(c: Context<AppEnv>): string | undefined {
  const principal = requestInfoOf(c)?.principal;
  return principal?.role === "dictate" ? (principal.key?.name ?? "") : undefined;
}

/** `/api/history`: transcriptions, searched, paged, counted and deleted. */
export function createHistoryRoutes(deps: { history: HistoryService; docs: ApiDocs }) {
  const { history } = deps;
  return documentedRoutes(deps.docs, "/api/history", "History")
    .get(
      "/",
      {
        summary: "List and search transcriptions",
        access: "dictate",
        description:
          "A dictate key sees only the entries made with it; an admin sees all, and `key` filters them by key name. search matches words and word prefixes in the raw and final text (full-text index; operators are searched as words). from/to take a date (UTC day) or a date-time with offset; both inclusive.",
        query: historyListQuerySchema,
        responses: { 200: { description: "One page", schema: pageSchema(historyItemSchema) } },
      },
      (c) => c.json(history.list(c.req.valid("query"), ownOnly(c))),
    )
    .get(
      "/stats",
      {
        summary: "Usage statistics",
        access: "dictate",
        description:
          "Totals over all history, today's count and per-day counts for the last `days` days, with days bounded in the client's time zone (tzOffsetMinutes east of UTC).",
        query: historyStatsQuerySchema,
        responses: { 200: { description: "Statistics", schema: historyStatsSchema } },
      },
      (c) => c.json(history.stats(c.req.valid("query"), ownOnly(c))),
    )
    .get(
      "/:id",
      {
        summary: "One transcription",
        access: "dictate",
        params: historyIdParamsSchema,
        responses: { 200: { description: "The entry", schema: historyItemSchema } },
      },
      (c) => c.json(history.get(c.req.valid("param").id, ownOnly(c))),
    )
    .delete(
      "/:id",
      {
        summary: "Delete one transcription",
        access: "dictate",
        params: historyIdParamsSchema,
        responses: { 204: { description: "Deleted" } },
      },
      (c) => {
        history.remove(c.req.valid("param").id, ownOnly(c));
        return c.body(null, 204);
      },
    )
    .delete(
      "/",
      {
        summary: "Delete all history",
        access: "dictate",
        responses: {
          200: { description: "How many were deleted", schema: v.object({ deleted: v.number() }) },
        },
      },
      (c) => c.json({ deleted: history.clear(ownOnly(c)) }),
    );
}
