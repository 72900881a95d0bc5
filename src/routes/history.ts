import { Hono } from "hono";
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
import type { AppEnv } from "../http/types.ts";
import { readQuery } from "../http/validate.ts";
import { pageSchema } from "../lists.ts";
import { parseOrThrow } from "../validation.ts";

const historyPageSchema = pageSchema(historyItemSchema);

function documentHistory(docs: ApiDocs): void {
  const tag = "History";
  docs.add(
    {
      method: "get",
      path: "/api/history",
      tag,
      summary: "List and search transcriptions",
      description:
        "search matches words and word prefixes in the raw and final text (full-text index; operators are searched as words). from/to take a date (UTC day) or a date-time with offset; both inclusive.",
      query: historyListQuerySchema,
      responses: { 200: { description: "One page", schema: historyPageSchema } },
    },
    {
      method: "get",
      path: "/api/history/stats",
      tag,
      summary: "Usage statistics",
      description:
        "Totals over all history, today's count and per-day counts for the last `days` days, with days bounded in the client's time zone (tzOffsetMinutes east of UTC).",
      query: historyStatsQuerySchema,
      responses: { 200: { description: "Statistics", schema: historyStatsSchema } },
    },
    {
      method: "get",
      path: "/api/history/:id",
      tag,
      summary: "One transcription",
      params: historyIdParamsSchema,
      responses: { 200: { description: "The entry", schema: historyItemSchema } },
    },
    {
      method: "delete",
      path: "/api/history/:id",
      tag,
      summary: "Delete one transcription",
      params: historyIdParamsSchema,
      responses: { 204: { description: "Deleted" } },
    },
    {
      method: "delete",
      path: "/api/history",
      tag,
      summary: "Delete all history",
      responses: { 200: { description: "How many were deleted", schema: v.object({ deleted: v.number() }) } },
    },
  );
}

export function createHistoryRoutes(deps: { history: HistoryService; docs: ApiDocs }) {
  const { history } = deps;
  documentHistory(deps.docs);
  const idOf = (params: unknown) => parseOrThrow(historyIdParamsSchema, params, "invalid_request", "path").id;

  return new Hono<AppEnv>()
    .get("/", (c) => c.json(history.list(readQuery(c, historyListQuerySchema))))
    .get("/stats", (c) => c.json(history.stats(readQuery(c, historyStatsQuerySchema))))
    .get("/:id", (c) => c.json(history.get(idOf(c.req.param()))))
    .delete("/:id", (c) => {
      history.remove(idOf(c.req.param()));
      return c.body(null, 204);
    })
    .delete("/", (c) => c.json({ deleted: history.clear() }));
}
