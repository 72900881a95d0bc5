// The installed plugins, shared by the navigation (their pages) and the Plugins screen, kept
// current by the plugins.* events.
import { useEffect, useState } from "preact/hooks";
import { type Answer, api } from "./api.ts";
import { onServerEvent } from "./events.ts";

export type PluginInfo = Answer<"get", "/api/plugins">["items"][number];

interface State {
  plugins: PluginInfo[];
  error: unknown;
  loaded: boolean;
}

let state: State = { plugins: [], error: undefined, loaded: false };
const listeners = new Set<(state: State) => void>();
let started = false;

/** Fetches the list again (after an action, or when an event says it changed). */
export async function refreshPlugins(): Promise<void> {
  try {
    const list = await api.get("/api/plugins");
    state = { plugins: list.items, error: undefined, loaded: true };
  } catch (error) {
    state = { ...state, error, loaded: true };
  }
  for (const listener of listeners) listener(state);
}

export function usePlugins(): State {
  const [current, setCurrent] = useState(state);
  useEffect(() => {
    listeners.add(setCurrent);
    if (!started) {
      started = true;
      void refreshPlugins();
      onServerEvent((event) => {
        if (event.type.startsWith("plugins.")) void refreshPlugins();
      });
    }
    return () => listeners.delete(setCurrent);
  }, []);
  return current;
}

/** The name a person knows a plugin by. */
export const pluginTitle = (plugin: PluginInfo): string => plugin.displayName ?? plugin.name;
