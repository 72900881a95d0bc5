// Short notices at the bottom of the screen ("Copied", a plugin page's toast), announced politely.
import { useEffect, useState } from "preact/hooks";

export type ToastVariant = "success" | "info" | "warning" | "error";
interface Toast {
  id: number;
  message: string;
  variant: ToastVariant;
}

let nextId = 1;
let current: Toast[] = [];
const listeners = new Set<(toasts: Toast[]) => void>();

function publish(toasts: Toast[]) {
  current = toasts;
  for (const listener of listeners) listener(current);
}

/** Shows a notice for a few seconds (errors stay longer). */
export function toast(message: string, variant: ToastVariant = "info"): void {
  const item = { id: nextId++, message: message.slice(0, 300), variant };
  publish([...current.slice(-3), item]);
  setTimeout(
    () => publish(current.filter((toast) => toast.id !== item.id)),
    variant === "error" ? 8000 : 4000,
  );
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
        </div>
      ))}
    </div>
  );
}
