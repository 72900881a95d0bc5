// Small pieces every screen uses: a screen frame, loading of API data, errors (error-text.tsx),
// a button that asks twice before destroying something, and copy to the clipboard.
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { type Answer, api, type CallArgs, type PathOf, urlOf } from "./api.ts";
import { toast } from "./toast.tsx";

export { ErrorText } from "./error-text.tsx";

export function Screen(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  return (
    <section class="screen" aria-labelledby="screen-title">
      <header class="screen-head">
        {/* Focusable from script: a menu choice or a deletion with nothing after it lands here. */}
        <h1 id="screen-title" tabIndex={-1}>
          {props.title}
        </h1>
        {props.actions && <div class="screen-actions">{props.actions}</div>}
      </header>
      {props.children}
    </section>
  );
}

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => Promise<void>;
}

/**
 * Loads a documented GET route (again whenever its URL changes or `reload` is called); `null`
 * loads nothing yet.
 */
export function useResource<P extends PathOf<"get">>(
  path: P | null,
  ...args: CallArgs<"get", P>
): Resource<Answer<"get", P>> {
  type T = Answer<"get", P>;
  const url = path === null ? null : urlOf(path, args[0]);
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const latest = useRef(url);
  latest.current = url;
  const options = useRef(args);
  options.current = args;
  const reload = useCallback(async () => {
    if (path === null) return;
    try {
      const data = await api.get(path, ...options.current);
      if (latest.current === url) setState({ data, loading: false });
    } catch (error) {
      if (latest.current === url) setState((old) => ({ data: old.data, error, loading: false }));
    }
  }, [path, url]);
  useEffect(() => {
    setState((old) => ({ data: old.data, loading: true }));
    void reload();
  }, [reload]);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** Runs an action, keeping its error and whether it is under way. */
export function useAction(): {
  busy: boolean;
  error: unknown;
  run: (action: () => Promise<unknown>) => Promise<boolean>;
  clear: () => void;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = useCallback(async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      return true;
    } catch (caught) {
      setError(caught);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: () => setError(undefined) };
}

/**
 * Which fields were edited since `error` came: their messages no longer hold (a message stays at
 * a field only until the person changes it), and none of the error does once any field changed.
 */
export function useEditedSince(error: unknown): {
  edit: (field: string) => void;
  edited: (field: string) => boolean;
  any: boolean;
} {
  const [state, setState] = useState<{ error: unknown; fields: ReadonlySet<string> }>({
    error,
    fields: new Set(),
  });
  const fields = state.error === error ? state.fields : new Set<string>();
  return {
    edit: (field) =>
      setState((old) => ({ error, fields: new Set(old.error === error ? old.fields : []).add(field) })),
    edited: (field) => fields.has(field),
    any: fields.size > 0,
  };
}

/** A page outside the console's frame (the login; svc not answering): centred, with svc's name. */
export function PageAlone(props: { children: ComponentChildren }) {
  return (
    <main id="main" class="page-alone" tabIndex={-1}>
      <p class="brand" aria-hidden="true">
        svc
      </p>
      {props.children}
    </main>
  );
}

/** Puts the focus on the screen's heading (after a menu choice, or when a list is left empty). */
export function focusHeading(): void {
  (document.getElementById("screen-title") ?? document.getElementById("main"))?.focus();
}

/**
 * Where the focus goes when `row` (a list item or table row) is about to go: the first control of
 * the row after it, or else the row before (an add row excepted), or else the list's heading
 * (`fallback`, an element id) or the screen's.
 * Found before the row goes, focused once it has.
 */
export function focusAfterRemoval(row: Element | null | undefined, fallback?: string): () => void {
  const usable = (sibling: Element | null | undefined) =>
    sibling && !sibling.classList.contains("add-row") ? sibling : undefined;
  const near = usable(row?.nextElementSibling) ?? usable(row?.previousElementSibling);
  const target = near?.querySelector<HTMLElement>("button, a[href], input, select, textarea");
  return () => {
    const heading = fallback ? document.getElementById(fallback) : null;
    if (target?.isConnected) target.focus();
    else if (heading) heading.focus();
    else focusHeading();
  };
}

/** A destructive button: the first press arms it ("Click again to …"), the second acts. */
export function ConfirmButton(props: {
  label: string;
  confirm: string;
  onConfirm: () => void;
  disabled?: boolean;
  class?: string;
  /** What it acts on, for screen readers when many rows have the same button: "“teh”". */
  subject?: string;
}) {
  const [armed, setArmed] = useState(false);
  useEffect(() => {
    if (!armed) return;
    const timer = setTimeout(() => setArmed(false), 5000);
    return () => clearTimeout(timer);
  }, [armed]);
  return (
    <button
      type="button"
      class={`${props.class ?? ""} ${armed ? "danger" : ""}`.trim()}
      disabled={props.disabled}
      aria-label={props.subject ? `${armed ? props.confirm : props.label} ${props.subject}` : undefined}
      onClick={() => {
        if (!armed) return setArmed(true);
        setArmed(false);
        props.onConfirm();
      }}
      onBlur={() => setArmed(false)}
      // Escape takes back an armed confirmation.
      onKeyDown={(event) => {
        if (event.key === "Escape" && armed) {
          event.preventDefault();
          setArmed(false);
        }
      }}
    >
      {armed ? props.confirm : props.label}
    </button>
  );
}

/** Copies text, saying so (the Clipboard API needs a secure context: localhost or HTTPS). */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    toast("Copied", "success");
  } catch {
    toast("Copying needs https or localhost; select the text and copy it instead.", "warning");
  }
}

/**
 * Bytes as a person reads them, in decimal units as the CLI, the docs and download sites give a
 * model's size (base.en is 148 MB everywhere, never 141).
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** An ISO time in the reader's locale. */
export const formatTime = (iso: string): string => new Date(iso).toLocaleString();
