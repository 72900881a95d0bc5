// The console's own paths: the server answers each with the console document, the browser's
// router draws the screen. A leaf both sides import (no DOM, no server code).

/** The screens in navigation order: path, title; `dictate`: open to a dictate key too (its own history). */
export const screens = [
  { path: "/", title: "Dictate", dictate: true },
  { path: "/history", title: "History", dictate: true },
  { path: "/dictionary", title: "Dictionary" },
  { path: "/vocabulary", title: "Vocabulary" },
  { path: "/formats", title: "Formats" },
  { path: "/models", title: "Models" },
  { path: "/settings", title: "Settings" },
  { path: "/plugins", title: "Plugins" },
  { path: "/access", title: "Access" },
] as const;

/** The login page: the start log's link opens it with `?code=`. */
export const loginPath = "/login";

export type ScreenPath = (typeof screens)[number]["path"];

/** A plugin page inside the console: `/plugins/<slug>/<page-id>`. */
export const pluginPagePath = /^\/plugins\/([a-z0-9][a-z0-9-]{0,213})\/([a-z0-9][a-z0-9-]{0,63})$/;

export const isScreenPath = (path: string): path is ScreenPath =>
  screens.some((screen) => screen.path === path);

/** Whether a key of `role` may use the screen: a dictate key sees Dictate and its own History. */
export const screenFor = (path: string, role: "admin" | "dictate" | null): boolean =>
  role === "admin" || screens.some((screen) => screen.path === path && "dictate" in screen);

/** Whether the console draws something at `path` (the server answers the document for it). */
export function isConsolePath(path: string): boolean {
  return isScreenPath(path) || path === loginPath || pluginPagePath.test(path);
}
