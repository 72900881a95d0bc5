import type { HistoryRepo } from "../db/history-repo.ts";
import { notFound } from "../errors.ts";
import type { EventBus } from "../events.ts";
import type { Page } from "../lists.ts";
import type { Logger } from "../logger.ts";
import type { SettingsService } from "../settings/service.ts";
import { type HistoryItem, type NewHistoryEntry, toHistoryItem, toHistoryRow } from "./items.ts";
import type { HistoryListQuery, HistoryStats, HistoryStatsQuery } from "./schemas.ts";
import { historySearch } from "./search.ts";
import { computeHistoryStats } from "./stats.ts";

const dayMs = 86_400_000;

export interface HistoryService {
  /** Stores one transcription and returns its id, or null while `history_paused` is on. */
  record(entry: NewHistoryEntry): number | null;
  /** `only`: the rows of that key alone (a dictate key sees its own); else the query's `key` filter. */
  list(query: HistoryListQuery, only?: string): Page<HistoryItem>;
  /** 404 when absent (or, with `only`, made with another key). */
  get(id: number, only?: string): HistoryItem;
  /** 404 when absent (or, with `only`, made with another key). */
  remove(id: number, only?: string): void;
  /** Deletes every entry (with `only`, that key's); returns how many. */
  clear(only?: string): number;
  stats(query: HistoryStatsQuery, only?: string): HistoryStats;
  /** Applies `history_retention_days` now; returns how many entries were deleted. */
  purgeExpired(): number;
  /** Purges now and then daily until `stopRetention()`. */
  startRetention(): void;
  stopRetention(): void;
}

export function createHistoryService(deps: {
  repo: HistoryRepo;
  settings: SettingsService;
  events: EventBus;
  logger: Logger;
  now?: () => Date;
  retentionIntervalMs?: number;
}): HistoryService {
  const { repo, settings, events, logger } = deps;
  const now = deps.now ?? (() => new Date());
  let timer: ReturnType<typeof setInterval> | undefined;

  const find = (id: number, only?: string) => {
    const row = repo.findById(id);
    if (!row || (only !== undefined && row.key_name !== only))
      throw notFound(`No history entry with id ${id}.`, { id });
    return row;
  };

  function purgeExpired(): number {
    const days = settings.get("history_retention_days");
    if (days === null) return 0;
    const before = new Date(now().getTime() - days * dayMs).toISOString();
    const deleted = repo.deleteCreatedBefore(before);
    if (deleted > 0) {
      logger.info("history retention purge", { deleted, before });
      events.publish("history.purged", { deleted, before });
    }
    return deleted;
  }

  function safePurge(): void {
    try {
      purgeExpired();
    } catch (error) {
      logger.error("history retention purge failed", { error });
    }
  }

  return {
    record(entry) {
      if (settings.get("history_paused")) return null;
      const { id, createdAt } = repo.insert(toHistoryRow(entry, now()));
      events.publish("history.created", { id, createdAt });
      return id;
    },
    list(query, only) {
      const search = query.search ? historySearch(query.search) : {};
      const { rows, total } = repo.list({
        ...search,
        from: query.from,
        until: query.to,
        key: only ?? query.key,
        sort: query.orderBy.field,
        direction: query.orderBy.direction,
        limit: query.limit,
        offset: query.offset,
      });
      return { items: rows.map(toHistoryItem), total, limit: query.limit, offset: query.offset };
    },
    get: (id, only) => toHistoryItem(find(id, only)),
    remove(id, only) {
      if (!repo.deleteById(id, only)) throw notFound(`No history entry with id ${id}.`, { id });
      events.publish("history.deleted", { id });
    },
    clear(only) {
      const deleted = repo.deleteAll(only);
      events.publish("history.cleared", { deleted });
      return deleted;
    },
    stats: (query, only) => computeHistoryStats(repo, query, now(), only),
    purgeExpired,
    startRetention() {
      if (timer) return;
      safePurge();
      timer = setInterval(safePurge, deps.retentionIntervalMs ?? dayMs);
      // The daily purge must never keep the process alive on its own.
      timer.unref?.();
    },
    stopRetention() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
