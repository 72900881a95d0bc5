// One WebSocket to /api/events for the whole console, reconnecting with backoff. Events carry
// ids and figures only; screens refetch what changed over HTTP.
import { useEffect, useRef } from "preact/hooks";
import { socketUrl } from "./api.ts";

export interface ServerEvent {
  type: string;
  time: string;
  [key: string]: unknown;
}

type Listener = (event: ServerEvent) => void;
const listeners = new Set<Listener>();
let socket: WebSocket | undefined;
let retryDelay = 500;
// Unknown until the first socket opens or closes: the console does not claim to be offline while
// it is still connecting.
let connected: boolean | undefined;
const statusListeners = new Set<(connected: boolean) => void>();
const refusedListeners = new Set<() => void>();

function setConnected(value: boolean) {
  connected = value;
  for (const listener of statusListeners) listener(value);
}

/** Opens the socket (once); called by the first subscriber. */
function connect() {
  if (socket) return;
  const ws = new WebSocket(socketUrl("/api/events"));
  socket = ws;
  let opened = false;
  ws.onopen = () => {
    opened = true;
    retryDelay = 500;
    setConnected(true);
  };
  ws.onmessage = (message) => {
    let event: ServerEvent;
    try {
      event = JSON.parse(String(message.data)) as ServerEvent;
    } catch {
      return;
    }
    for (const listener of listeners) listener(event);
  };
  ws.onclose = (event) => {
    socket = undefined;
    setConnected(false);
    // Closed for its credential (1008: a revoked key, a logout elsewhere, keys turned on) or refused
    // at the upgrade: whoever listens asks svc who this browser is now, and the login follows.
    if (event.code === 1008 || !opened) for (const listener of refusedListeners) listener();
    // Back off to 10 s at most, with jitter so many tabs do not reconnect in step.
    const delay = retryDelay * (0.75 + Math.random() * 0.5);
    retryDelay = Math.min(retryDelay * 2, 10_000);
    setTimeout(connect, delay);
  };
}

/** Called when the events socket was closed for its credential, or refused before it opened. */
export function onSocketRefused(listener: () => void): () => void {
  refusedListeners.add(listener);
  return () => refusedListeners.delete(listener);
}

/** Subscribes to every event; returns the unsubscribe function. */
export function onServerEvent(listener: Listener): () => void {
  connect();
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Calls `handler` for events whose type is listed (or starts with a listed `prefix.`). */
export function useServerEvents(types: readonly string[], handler: Listener): void {
  const latest = useRef(handler);
  latest.current = handler;
  const key = types.join(",");
  useEffect(() => {
    const wanted = key.split(",");
    return onServerEvent((event) => {
      if (wanted.some((type) => event.type === type || (type.endsWith(".") && event.type.startsWith(type))))
        latest.current(event);
    });
  }, [key]);
}

/** Follows whether the events socket is up (true until a connection is lost). */
export function onConnectionChange(listener: (connected: boolean) => void): () => void {
  connect();
  statusListeners.add(listener);
  listener(connected !== false);
  return () => statusListeners.delete(listener);
}
