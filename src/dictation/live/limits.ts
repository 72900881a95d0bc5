import type { HistorySource } from "../../history/items.ts";
import type { SettingKey, SettingValue } from "../../settings/catalog.ts";
import type { SettingsService } from "../../settings/service.ts";

/** The limits every live dictation runs under, whichever door it came in by; 0 turns one off. */
export interface LiveLimits {
  /** Longest dictation, in seconds of audio. */
  maxSeconds: number;
  /** Audio may arrive at most this many times faster than real time, after a second's head start. */
  maxSpeed: number;
  /** Nothing arriving this long ends the connection (the clock stops while a transcript is made). */
  idleTimeoutSeconds: number;
  /** A connection that has started no dictation this long after opening is ended. */
  startTimeoutSeconds: number;
  /** Dictations at once through this door, counted from their start; one more is refused `busy`. */
  maxSessions: number;
}

type NumberSetting = { [K in SettingKey]: SettingValue<K> extends number ? K : never }[SettingKey];

/** A door a live dictation comes in by. */
export interface LiveDoor {
  /** What history and the plugin hooks call it. */
  source: HistorySource;
  /** The setting that holds each limit (named in its refusal); null: the limit does not apply. */
  settings: Record<keyof LiveLimits, NumberSetting | null>;
  /** What a client sending faster than `maxSpeed` should do instead, the refusal's last words. */
  tooFast: string;
}

/**
 * The doors and the settings behind their limits, one family named once: the WebSocket's keep
 * their `dictate_*` settings and Wyoming's its `wyoming_*` ones (a connection cap and the byte
 * limits of each protocol stay with the protocol); `svc dictate` runs the operator's own file, so
 * only the length applies.
 */
export const liveDoors = {
  dictate: {
    source: "live",
    settings: {
      maxSeconds: "dictate_max_session_seconds",
      maxSpeed: "dictate_max_speed",
      idleTimeoutSeconds: "dictate_idle_timeout_seconds",
      startTimeoutSeconds: "dictate_start_timeout_seconds",
      maxSessions: "dictate_max_sessions",
    },
    tooFast: "stream as it is spoken, or POST /api/transcribe a recording",
  },
  wyoming: {
    source: "wyoming",
    settings: {
      maxSeconds: "wyoming_max_utterance_seconds",
      maxSpeed: "wyoming_max_speed",
      idleTimeoutSeconds: "wyoming_idle_timeout_seconds",
      startTimeoutSeconds: null,
      maxSessions: null,
    },
    tooFast: "stream audio as it is captured",
  },
  cli: {
    source: "cli",
    settings: {
      maxSeconds: "dictate_max_session_seconds",
      maxSpeed: null,
      idleTimeoutSeconds: null,
      startTimeoutSeconds: null,
      maxSessions: null,
    },
    tooFast: "",
  },
} as const satisfies Record<string, LiveDoor>;

/** A door's limits from its settings, read on each call so a change applies at once. */
export function liveLimits(settings: Pick<SettingsService, "get">, door: LiveDoor): () => LiveLimits {
  const read = (key: NumberSetting | null) => (key === null ? 0 : settings.get(key));
  return () => ({
    maxSeconds: read(door.settings.maxSeconds),
    maxSpeed: read(door.settings.maxSpeed),
    idleTimeoutSeconds: read(door.settings.idleTimeoutSeconds),
    startTimeoutSeconds: read(door.settings.startTimeoutSeconds),
    maxSessions: read(door.settings.maxSessions),
  });
}
