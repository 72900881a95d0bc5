// Short notices at the bottom of the screen ("Copied", a plugin page's toast), announced politely.
import { useEffect, useState } from "preact/hooks";

export type ToastVariant = "success" | "info" | "warning" | "error";
interface Toast {
  id: number;
  message: string;
  variant: ToastVariant;
  /** A button in the notice (Undo). */
  action?: { label: string; run(): void };
}

let nextId = 1;
let current: Toast[] = [];
const listeners = new Set<(toasts: Toast[]) => void>();

function publish(toasts: Toast[]) {
  current = toasts;
  for (const listener of listeners) listener(current);
}

const dismiss = (id: number) => publish(current.filter((toast) => toast.id !== id));

/** Shows a notice for a few seconds (errors stay longer). */
export function toast(message: string, variant: ToastVariant = "info"): void {
  const item = { id: nextId++, message: message.slice(0, 300), variant };
  publish([...current.slice(-3), item]);
  setTimeout(() => dismiss(item.id), variant === "error" ? 8000 : 4000);
}

/** How long a deletion waits for Undo before it is made. */
export const undoMs = 6000;

/**
 * A deletion that can be taken back: `hide` takes it off the screen at once, a notice offers
 * Undo for `undoMs`, and only then `commit` asks svc to delete. Undo calls `restore` instead.
 */
export function undoable(message: string, actions: { hide(): void; restore(): void; commit(): void }): void {
  actions.hide();
  let undone = false;
  const item: Toast = {
    id: nextId++,
    message,
    variant: "success",
    action: {
      label: "Undo",
      run() {
        undone = true;
        dismiss(item.id);
        actions.restore();
      },
    },
  };
  publish([...current.slice(-3), item]);
  setTimeout(() => {
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
        <div key={item.id} class={`toast toast-${item.variant}`}>
          {item.message}
          {item.action && (
            <button type="button" class="link" onClick={item.action.run}>
              {item.action.label}
            </button>
          )}
        </div>
      ))}
    </div>
  );
}
