// The keyboard sheet: "?" (outside a text field) or the menu's "Keyboard keys" opens a dialog that
// lists the console's keys. Escape closes it; Tab stays inside while it is open; the focus then goes
// back where it was.
import { useEffect, useRef } from "preact/hooks";

/** The keys a person can use, as the sheet and docs/web-console.md list them. */
export const consoleKeys: readonly [keys: string, what: string][] = [
  ["Space (hold)", "Dictate: hold to talk, release to stop, wherever the focus is but a text field"],
  ["Ctrl+Z or ⌘Z", "Undo the last delete while its notice shows (outside a text field)"],
  ["Escape", "Close the menu, this sheet or an editor; take back a delete that asks to be clicked again"],
  ["Enter", "Save a Dictionary or Vocabulary row being edited, or press the focused button"],
  ["Tab, Shift+Tab", "Move between controls; the first Tab offers “Skip to content”"],
  ["?", "Show these keys (outside a text field)"],
];

/** A place where "?" is typed, not a key for the console. */
const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement &&
  target.closest("input:not([type=checkbox]):not([type=radio]), textarea, select, [contenteditable]") !==
    null;

let openSheet: (() => void) | undefined;

/** Opens the sheet (the menu's button). */
export const showKeySheet = () => openSheet?.();

export function KeySheet() {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);
  useEffect(() => {
    const open = () => {
      const sheet = dialog.current;
      if (!sheet || sheet.open) return;
      opener.current = document.activeElement;
      sheet.showModal();
      sheet.querySelector<HTMLButtonElement>("button")?.focus();
    };
    openSheet = open;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "?" || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
      event.preventDefault();
      open();
    };
    addEventListener("keydown", onKey);
    return () => {
      removeEventListener("keydown", onKey);
      openSheet = undefined;
    };
  }, []);
  const restore = () => {
    const back = opener.current;
    opener.current = null;
    if (back instanceof HTMLElement && back.isConnected && back !== document.body) back.focus();
    else document.getElementById("main")?.focus();
  };
  // Tab and Shift+Tab go round the dialog's own controls.
  const trap = (event: KeyboardEvent) => {
    if (event.key !== "Tab" || !dialog.current) return;
    const controls = [...dialog.current.querySelectorAll<HTMLElement>("button")];
    const first = controls[0];
    const last = controls[controls.length - 1];
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last?.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first?.focus();
    }
  };
  return (
    <dialog
      ref={dialog}
      class="key-sheet"
      aria-labelledby="key-sheet-title"
      onClose={restore}
      onKeyDown={trap}
    >
      <div class="key-sheet-head">
        <h2 id="key-sheet-title">Keyboard keys</h2>
        <button type="button" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </div>
      <table class="key-list">
        <tbody>
          {consoleKeys.map(([keys, what]) => (
            <tr key={keys}>
              <th scope="row">
                <kbd>{keys}</kbd>
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </dialog>
  );
}
