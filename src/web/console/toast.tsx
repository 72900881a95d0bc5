// Short notices at the bottom of the screen ("Copied", a plugin page's toast), announced politely.
import { useEffect, useState } from "preact/hooks";
import { ErrorWords } from "./error-text.tsx";

export type ToastVariant = "success" | "info" | "warning" | "error";
interface Toast {
  id: number;
  message: string;
  variant: ToastVariant;
  /** A button in the notice (Undo). */
  action?: { label: string; run(): void };
  /** A failure, shown as its sentence with Details (error-text.tsx). */
  error?: unknown;
  /** Where the focus goes if the notice holds it when it closes; the screen by default. */
  refocus?: () => void;
}

let nextId = 1;
let current: Toast[] = [];
const listeners = new Set<(toasts: Toast[]) => void>();

function publish(toasts: Toast[]) {
  current = toasts;
  for (const listener of listeners) listener(current);
}

const dismiss = (id: number) => {
  // A notice that held the focus (its Undo) gives it back to the screen, not to the page's body.
  const focused = document.activeElement?.closest?.(`[data-toast="${id}"]`);
  const refocus = current.find((toast) => toast.id === id)?.refocus;
  publish(current.filter((toast) => toast.id !== id));
  // After the screen has drawn what Undo brought back or the deletion took away.
  if (focused) setTimeout(() => (refocus ? refocus() : document.getElementById("main")?.focus()));
};

// The Undo on offer now: Ctrl+Z (or Cmd+Z), outside a text field, takes it.
let latestUndo: (() => void) | undefined;
if (typeof addEventListener === "function") {
  addEventListener("keydown", (event: KeyboardEvent) => {
    if (event.key.toLowerCase() !== "z" || !(event.ctrlKey || event.metaKey) || event.shiftKey) return;
    const target = event.target;
    if (target instanceof HTMLElement && target.closest("input, textarea, select, [contenteditable]")) return;
    if (!latestUndo) return;
    event.preventDefault();
    latestUndo();
  });
}

/** Shows a notice for a few seconds (errors stay longer). */
export function toast(message: string, variant: ToastVariant = "info"): void {
  const item = { id: nextId++, message: message.slice(0, 300), variant };
  publish([...current.slice(-3), item]);
  setTimeout(() => dismiss(item.id), variant === "error" ? 8000 : 4000);
}

/** Shows a failure as its plain sentence, with Details; it stays while someone reads them. */
export function toastError(error: unknown): void {
  const item: Toast = { id: nextId++, message: "", variant: "error", error };
  publish([...current.slice(-3), item]);
  const later = () => {
    const shown = document.querySelector(`[data-toast="${item.id}"]`);
    if (shown?.querySelector("details[open]") || shown?.contains(document.activeElement))
      setTimeout(later, 4000);
    else dismiss(item.id);
  };
  setTimeout(later, 8000);
}

/** How long a deletion waits for Undo before it is made. */
export const undoMs = 6000;

/**
 * A deletion that can be taken back: `hide` takes it off the screen at once, a notice offers
 * Undo for `undoMs`, and only then `commit` asks svc to delete. Undo calls `restore` instead.
 * The focus is on Undo meanwhile, then goes to `refocus` (the row Undo brought back, or the next).
 */
export function undoable(
  message: string,
  actions: { hide(): void; restore(): void; commit(): void; refocus?: () => void },
): void {
  actions.hide();
  let undone = false;
  const item: Toast = {
    id: nextId++,
    message,
    variant: "success",
    refocus: actions.refocus,
    action: {
      label: "Undo",
      run() {
        if (undone) return;
        undone = true;
        if (latestUndo === item.action?.run) latestUndo = undefined;
        dismiss(item.id);
        actions.restore();
      },
    },
  };
  publish([...current.slice(-3), item]);
  latestUndo = item.action?.run;
  // What was deleted is gone from the screen: the focus goes to its Undo, one Enter away.
  requestAnimationFrame(() =>
    document.querySelector<HTMLButtonElement>(`[data-toast="${item.id}"] button`)?.focus(),
  );
  setTimeout(() => {
    if (latestUndo === item.action?.run) latestUndo = undefined;
    dismiss(item.id);
    if (!undone) actions.commit();
  }, undoMs);
}

export function Toasts() {
  const [toasts, setToasts] = useState(current);
  useEffect(() => {
    listeners.add(setToasts);
    return () => listeners.delete(setToasts);
  }, []);
  return (
    <div class="toasts" role="status" aria-live="polite">
      {toasts.map((item) => (
        <div key={item.id} class={`toast toast-${item.variant}`} data-toast={item.id}>
          {item.error === undefined ? item.message : <ErrorWords error={item.error} />}
          {item.action && (
            <button
              type="button"
              class="link"
              onClick={item.action.run}
              aria-keyshortcuts={item.action.label === "Undo" ? "Control+Z" : undefined}
            >
              {item.action.label}
            </button>
          )}
        </div>
      ))}
    </div>
  );
}
