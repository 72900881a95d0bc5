// Pieces the list screens share (History, Dictionary, Vocabulary): a debounced search box and a
// pager that says which items are shown.
import { useEffect, useState } from "preact/hooks";

/** `value`, once it has stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** A labelled search input; `onInput` gets every keystroke (debounce the value, not the box). */
export function SearchBox(props: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
}) {
  return (
    <div class="grow">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="search"
        class="wide"
        value={props.value}
        onInput={(event) => props.onInput(event.currentTarget.value)}
      />
    </div>
  );
}

/**
 * "21–40 of 75" with Previous / Next (or the names a list gives them: History's Newer / Older);
 * nothing when everything fits on one page. A button at the end is marked unavailable rather than
 * disabled, so the focus stays on it.
 */
export function Pager(props: {
  label: string;
  total: number;
  limit: number;
  offset: number;
  onOffset: (offset: number) => void;
  names?: [previous: string, next: string];
}) {
  const { total, limit, offset } = props;
  if (total <= limit && offset === 0) return null;
  const first = total === 0 ? 0 : offset + 1;
  const last = Math.min(offset + limit, total);
  const [previous, next] = props.names ?? ["Previous", "Next"];
  const atStart = offset === 0;
  const atEnd = last >= total;
  return (
    <nav class="pager row" aria-label={props.label}>
      <button
        type="button"
        aria-disabled={atStart ? "true" : undefined}
        onClick={() => !atStart && props.onOffset(Math.max(0, offset - limit))}
      >
        {previous}
      </button>
      <span aria-live="polite">
        {first}–{last} of {total}
      </span>
      <button
        type="button"
        aria-disabled={atEnd ? "true" : undefined}
        onClick={() => !atEnd && props.onOffset(offset + limit)}
      >
        {next}
      </button>
    </nav>
  );
}

/** The offset of the last page that has items, when a deletion emptied the current one. */
export function lastPageOffset(total: number, limit: number): number {
  return total === 0 ? 0 : Math.floor((total - 1) / limit) * limit;
}
