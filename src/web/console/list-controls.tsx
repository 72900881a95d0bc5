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

/** "21–40 of 75" with Previous / Next; nothing when everything fits on one page. */
export function Pager(props: {
  label: string;
  total: number;
  limit: number;
  offset: number;
  onOffset: (offset: number) => void;
}) {
  const { total, limit, offset } = props;
  if (total <= limit && offset === 0) return null;
  const first = total === 0 ? 0 : offset + 1;
  const last = Math.min(offset + limit, total);
  return (
    <nav class="pager row" aria-label={props.label}>
      <button
        type="button"
        disabled={offset === 0}
        onClick={() => props.onOffset(Math.max(0, offset - limit))}
      >
        Previous
      </button>
      <span aria-live="polite">
        {first}–{last} of {total}
      </span>
      <button type="button" disabled={last >= total} onClick={() => props.onOffset(offset + limit)}>
        Next
      </button>
    </nav>
  );
}

/** The offset of the last page that has items, when a deletion emptied the current one. */
export function lastPageOffset(total: number, limit: number): number {
  return total === 0 ? 0 : Math.floor((total - 1) / limit) * limit;
}
