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
  list(query: HistoryListQuery): Page<HistoryItem>;
  /** 404 when absent. */
  get(id: number): HistoryItem;
  /** 404 when absent. */
  remove(id: number): void;
  /** Deletes every entry; returns how many. */
  clear(): number;
  stats(query: HistoryStatsQuery): HistoryStats;
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

  const find = (id: number) => {
    const row = repo.findById(id);
    if (!row) throw notFound(`No history entry with id ${id}.`, { id });
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
    list(query) {
      const search = query.search ? historySearch(query.search) : {};
      const { rows, total } = repo.list({
        ...search,
        from: query.from,
        until: query.to,
        sort: query.orderBy.field,
        direction: query.orderBy.direction,
        limit: query.limit,
        offset: query.offset,
      });
      return { items: rows.map(toHistoryItem), total, limit: query.limit, offset: query.offset };
    },
    get: (id) => toHistoryItem(find(id)),
    remove(id) {
      if (!repo.deleteById(id)) throw notFound(`No history entry with id ${id}.`, { id });
      events.publish("history.deleted", { id });
    },
    clear() {
      const deleted = repo.deleteAll();
      events.publish("history.cleared", { deleted });
      return deleted;
    },
    stats: (query) => computeHistoryStats(repo, query, now()),
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
