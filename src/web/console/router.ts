// History-API routing: the server answers every console path with the same document.
import { useEffect, useState } from "preact/hooks";

const listeners = new Set<() => void>();
/** Asked before leaving the screen: false stays (a screen with unsaved edits asks the person). */
const leaveGuards = new Set<() => boolean>();

/** Registers a guard for as long as the calling screen is shown. */
export function useLeaveGuard(mayLeave: () => boolean): void {
  useEffect(() => {
    leaveGuards.add(mayLeave);
    const unload = (event: BeforeUnloadEvent) => {
      if (!mayLeave()) event.preventDefault();
    };
    addEventListener("beforeunload", unload);
    return () => {
      leaveGuards.delete(mayLeave);
      removeEventListener("beforeunload", unload);
    };
  }, [mayLeave]);
}

/** Goes to an in-app path without reloading; `replace` keeps the history entry. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return;
  for (const mayLeave of leaveGuards) if (!mayLeave()) return;
  if (options.replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  for (const listener of listeners) listener();
}

/** The current path (and search), re-rendering on navigation. */
export function useLocation(): { path: string; search: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const update = () => setTick((tick) => tick + 1);
    listeners.add(update);
    addEventListener("popstate", update);
    return () => {
      listeners.delete(update);
      removeEventListener("popstate", update);
    };
  }, []);
  return { path: location.pathname, search: new URLSearchParams(location.search) };
}

/** A click on an in-app link navigates without a reload (modified clicks keep their meaning). */
export function interceptLinks(root: HTMLElement): void {
  root.addEventListener("click", (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey)
      return;
    const link = (event.target as Element | null)?.closest?.("a[href]");
    if (!(link instanceof HTMLAnchorElement) || link.target || link.origin !== location.origin) return;
    if (link.pathname.startsWith("/api/") || link.hasAttribute("download")) return;
    // A link within this page (the skip link to #main) keeps the browser's own behaviour.
    if (link.hash && link.pathname === location.pathname) return;
    event.preventDefault();
    navigate(link.pathname + link.search);
  });
}
