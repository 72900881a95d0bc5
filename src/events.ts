/**
 * Every event type the server publishes on `/api/events` (after the `hello` each socket gets first).
 * The bus accepts only these, so the list in the API reference cannot fall behind the code.
 */
export const eventTypes = [
  "settings.changed",
  "settings.deleted",
  "dictionary.changed",
  "vocabulary.changed",
  "formats.changed",
  "data.imported",
  "history.created",
  "history.deleted",
  "history.cleared",
  "history.purged",
  "transcription.completed",
  "pipeline.error",
  "models.progress",
  "models.installed",
  "models.failed",
  "models.deleted",
  "plugins.changed",
  "plugins.installed",
  "plugins.uninstalled",
] as const;
export type EventType = (typeof eventTypes)[number];

/** A server event as pushed on `/api/events`: `{"type": "dictionary.changed", ...}`. */
export type ServerEvent = { type: string; time: string } & Record<string, unknown>;

export type EventListener = (event: ServerEvent) => void;

export interface EventBus {
  /** Publishes to every subscriber; one call from anywhere in the app. */
  publish(type: EventType, data?: Record<string, unknown>): void;
  subscribe(listener: EventListener): () => void;
  readonly size: number;
}

export function createEventBus(onListenerError?: (error: unknown) => void): EventBus {
  const listeners = new Set<EventListener>();
  return {
    publish(type, data = {}) {
      if (listeners.size === 0) return;
      const event: ServerEvent = { ...data, type, time: new Date().toISOString() };
      for (const listener of listeners) {
        try {
          listener(event);
        } catch (error) {
          // One broken socket must not stop the others from hearing the event.
          onListenerError?.(error);
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    get size() {
      return listeners.size;
    },
  };
}
