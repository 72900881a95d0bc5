import { useEffect, useState } from "preact/hooks";
import { type Answer, api } from "../api.ts";
import { useServerEvents } from "../events.ts";
import { HistoryStatsPanel, statsQuery } from "../history-stats.tsx";
import { lastPageOffset, Pager, SearchBox, useDebounced } from "../list-controls.tsx";
import { useSession } from "../session.ts";
import { toastError, undoable } from "../toast.tsx";
import {
  ConfirmButton,
  copyText,
  ErrorText,
  focusAfterRemoval,
  focusHeading,
  formatTime,
  Screen,
  useResource,
} from "../ui.tsx";

type HistoryItem = Answer<"get", "/api/history">["items"][number];

const pageSize = 20;
const pad = (n: number) => String(Math.floor(n)).padStart(2, "0");

/**
 * A date picked in the browser as the start or end of that local day, with its offset: the API
 * reads a bare date as a UTC day, which is not the day the reader means.
 */
export function localDayBound(date: string, end: boolean): string | undefined {
  const [year, month, day] = date.split("-").map(Number);
  if (!year || !month || !day) return undefined;
  const local = end ? new Date(year, month - 1, day, 23, 59, 59, 999) : new Date(year, month - 1, day);
  const east = -local.getTimezoneOffset();
  const offset = `${east < 0 ? "-" : "+"}${pad(Math.abs(east) / 60)}:${pad(Math.abs(east) % 60)}`;
  return `${date}T${end ? "23:59:59.999" : "00:00:00"}${offset}`;
}

function HistoryEntry(props: { item: HistoryItem; onDelete: (item: HistoryItem) => void }) {
  const { item } = props;
  const when = formatTime(item.createdAt);
  const app = item.appContext?.app;
  return (
    <li class="history-item panel" data-history-id={item.id}>
      <div class="item-head">
        <div class="row item-meta">
          <time class="small muted" dateTime={item.createdAt}>
            {when}
          </time>
          {app && <span class="tag">{app}</span>}
          {item.formatLabel && <span class="tag">{item.formatLabel}</span>}
          {item.keyName && (
            <span class="tag" title="The key it was made with">
              {item.keyName}
            </span>
          )}
          <span class="small muted">
            {item.wordCount} {item.wordCount === 1 ? "word" : "words"} · {item.engine}
          </span>
        </div>
        <div class="item-actions">
          <button
            type="button"
            aria-label={`Copy the dictation from ${when}`}
            onClick={() => void copyText(item.finalText)}
          >
            Copy
          </button>
          <ConfirmButton
            label="Delete"
            confirm="Confirm delete"
            subject={`the dictation from ${when}`}
            onConfirm={() => props.onDelete(item)}
          />
        </div>
      </div>
      {item.finalText ? <p class="history-text">{item.finalText}</p> : <p class="muted">(no speech)</p>}
    </li>
  );
}

function EmptyHistory(props: { filtered: boolean }) {
  if (props.filtered) return <p class="empty muted">No dictation matches these filters.</p>;
  return (
    <div class="empty panel">
      <p>No dictations yet.</p>
      <p class="muted">
        Open <a href="/">Dictate</a> and press the record button (or hold Space) to talk; what you say appears
        here as soon as it is transcribed. Apps that send audio to <code>POST /api/transcribe</code> show up
        here too.
      </p>
    </div>
  );
}

export function HistoryScreen() {
  const [search, setSearch] = useState("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [key, setKey] = useState("");
  const [offset, setOffset] = useState(0);
  const settled = useDebounced(search.trim(), 300);
  const { session } = useSession();
  const filters = {
    search: settled,
    from: localDayBound(from, false),
    to: localDayBound(to, true),
    key: key || undefined,
  };
  // A range that ends before it starts is said here, in the words of the fields, not asked of svc.
  const backwards = from !== "" && to !== "" && from > to;
  const list = useResource(backwards ? null : "/api/history", {
    query: { ...filters, limit: pageSize, offset },
  });
  const stats = useResource("/api/history/stats", { query: statsQuery() });
  const reload = () => Promise.all([list.reload(), stats.reload()]);
  useServerEvents(["history."], () => void reload());
  useEffect(() => setOffset(0), [settled, from, to, key]);

  const page = backwards ? undefined : list.data;
  useEffect(() => {
    if (page && page.items.length === 0 && page.offset > 0) setOffset(lastPageOffset(page.total, pageSize));
  }, [page]);

  // Deletions wait a few seconds for Undo: what is being deleted is hidden meanwhile.
  const [hidden, setHidden] = useState<ReadonlySet<number>>(new Set());
  const [allHidden, setAllHidden] = useState(false);
  const commit = async (action: () => Promise<unknown>) => {
    try {
      await action();
    } catch (error) {
      toastError(error);
    }
    await reload();
  };
  const removeOne = (item: HistoryItem) => {
    // Found while the row is there (its Delete button has the focus): the next row, for when it goes.
    const next = focusAfterRemoval(document.activeElement?.closest("li.history-item"));
    const refocus = () => {
      const restored = document.querySelector<HTMLElement>(
        `[data-history-id="${item.id}"] button[aria-label^="Delete"]`,
      );
      if (restored) restored.focus();
      else next();
    };
    undoable("Deleted the dictation.", {
      refocus,
      hide: () => setHidden((old) => new Set(old).add(item.id)),
      restore: () =>
        setHidden((old) => {
          const next = new Set(old);
          next.delete(item.id);
          return next;
        }),
      commit: () => void commit(() => api.delete("/api/history/{id}", { params: { id: item.id } })),
    });
  };
  const count = stats.data?.sessions ?? 0;
  const removeAll = () =>
    undoable(`Deleted all ${count} ${count === 1 ? "dictation" : "dictations"}.`, {
      refocus: focusHeading,
      hide: () => setAllHidden(true),
      restore: () => setAllHidden(false),
      commit: () => void commit(() => api.delete("/api/history")).then(() => setAllHidden(false)),
    });
  const filtered = Boolean(settled || from || to || key);
  const shown = allHidden ? [] : (list.data?.items ?? []).filter((item) => !hidden.has(item.id));

  return (
    <Screen
      title="History"
      actions={
        <ConfirmButton
          label={count > 0 && !allHidden ? `Delete all (${count})` : "Delete all"}
          confirm={`Confirm: delete all ${count} ${count === 1 ? "dictation" : "dictations"}`}
          disabled={!count || allHidden}
          onConfirm={removeAll}
        />
      }
    >
      <HistoryStatsPanel stats={stats} />
      <div class="row toolbar">
        <SearchBox id="history-search" label="Search dictations" value={search} onInput={setSearch} />
        <div class="date-field">
          <label for="history-from">From</label>
          <input id="history-from" type="date" value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
        </div>
        <div class="date-field">
          <label for="history-to">To</label>
          <input id="history-to" type="date" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
        </div>
        {session?.role === "admin" && session.mode !== "off" && (
          <div class="date-field">
            <label for="history-key">Key</label>
            <input
              id="history-key"
              value={key}
              placeholder="any"
              onInput={(e) => setKey(e.currentTarget.value.trim())}
            />
          </div>
        )}
        {filtered && (
          <button
            type="button"
            class="toolbar-end"
            onClick={() => {
              setSearch("");
              setFrom("");
              setTo("");
              setKey("");
            }}
          >
            Clear filters
          </button>
        )}
      </div>
      <ErrorText
        error={backwards ? new Error("The From date is after the To date. Change one of them.") : list.error}
      />
      {page && page.total === 0 && <EmptyHistory filtered={filtered} />}
      {page && shown.length > 0 && (
        <ol
          class="history-list"
          aria-label="Dictations, newest first"
          aria-busy={list.loading ? "true" : undefined}
        >
          {shown.map((item) => (
            <HistoryEntry key={item.id} item={item} onDelete={removeOne} />
          ))}
        </ol>
      )}
      {page && (
        <Pager
          label="History pages"
          names={["Newer", "Older"]}
          total={page.total}
          limit={pageSize}
          offset={page.offset}
          onOffset={setOffset}
        />
      )}
    </Screen>
  );
}
