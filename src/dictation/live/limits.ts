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

/**
 * The limits that protect the server itself, whoever dictates: environment variables an operator
 * sets (config.ts), never settings a client could raise over the API.
 */
export interface OperatorLimits {
  /** SVC_DICTATE_MAX_FRAME_SIZE: the largest /api/dictate message. */
  dictateMaxFrameBytes: number;
  /** SVC_DICTATE_MAX_SESSIONS: /api/dictate dictations at once. */
  dictateMaxSessions: number;
  /** SVC_WYOMING_MAX_CONNECTIONS */
  wyomingMaxConnections: number;
  /** SVC_WYOMING_MAX_HEADER_SIZE */
  wyomingMaxHeaderBytes: number;
  /** SVC_WYOMING_MAX_DATA_SIZE */
  wyomingMaxDataBytes: number;
  /** SVC_WYOMING_MAX_PAYLOAD_SIZE */
  wyomingMaxPayloadBytes: number;
  /** SVC_WYOMING_MAX_UNREAD_SIZE */
  wyomingMaxUnreadBytes: number;
}

/** The defaults of the operator's limits (config.ts's schema holds the same). */
export const defaultOperatorLimits: OperatorLimits = {
  dictateMaxFrameBytes: 262_144,
  dictateMaxSessions: 4,
  wyomingMaxConnections: 8,
  wyomingMaxHeaderBytes: 8192,
  wyomingMaxDataBytes: 65_536,
  wyomingMaxPayloadBytes: 262_144,
  wyomingMaxUnreadBytes: 1_048_576,
};

/** A door a live dictation comes in by. */
export interface LiveDoor {
  /** What history and the plugin hooks call it. */
  source: HistorySource;
  /**
   * The setting that holds each limit a dictation may tune, or for `maxSessions` the operator's
   * limit and its variable (named in its refusal); null: the limit does not apply.
   */
  settings: Record<Exclude<keyof LiveLimits, "maxSessions">, NumberSetting | null>;
  maxSessions: { variable: string; limit: keyof OperatorLimits } | null;
  /** What a client sending faster than `maxSpeed` should do instead, the refusal's last words. */
  tooFast: string;
}

/**
 * The doors and the settings behind their limits, one family named once: the WebSocket's keep
 * their `dictate_*` settings and Wyoming's its `wyoming_*` ones; the caps that protect the server
 * (sessions at once, a connection cap and each protocol's byte limits) are the operator's
 * (`OperatorLimits`, environment variables). `svc dictate` runs the operator's own file, so only
 * the length applies.
 */
export const liveDoors = {
  dictate: {
    source: "live",
    settings: {
      maxSeconds: "dictate_max_session_seconds",
      maxSpeed: "dictate_max_speed",
      idleTimeoutSeconds: "dictate_idle_timeout_seconds",
      startTimeoutSeconds: "dictate_start_timeout_seconds",
    },
    maxSessions: { variable: "SVC_DICTATE_MAX_SESSIONS", limit: "dictateMaxSessions" },
    tooFast: "stream as it is spoken, or POST /api/transcribe a recording",
  },
  // The Freestyle desktop app's /stream (src/desktop/): the WebSocket's limits, but no start
  // deadline, since its socket stays open between recordings and each recording connects anew.
  desktop: {
    source: "desktop",
    settings: {
      maxSeconds: "dictate_max_session_seconds",
      maxSpeed: "dictate_max_speed",
      idleTimeoutSeconds: "dictate_idle_timeout_seconds",
      startTimeoutSeconds: null,
    },
    maxSessions: { variable: "SVC_DICTATE_MAX_SESSIONS", limit: "dictateMaxSessions" },
    tooFast: "stream as it is spoken",
  },
  wyoming: {
    source: "wyoming",
    settings: {
      maxSeconds: "wyoming_max_utterance_seconds",
      maxSpeed: "wyoming_max_speed",
      idleTimeoutSeconds: "wyoming_idle_timeout_seconds",
      startTimeoutSeconds: null,
    },
    maxSessions: null,
    tooFast: "stream audio as it is captured",
  },
  cli: {
    source: "cli",
    settings: {
      maxSeconds: "dictate_max_session_seconds",
      maxSpeed: null,
      idleTimeoutSeconds: null,
      startTimeoutSeconds: null,
    },
    maxSessions: null,
    tooFast: "",
  },
} as const satisfies Record<string, LiveDoor>;

/** A door's limits from its settings, read on each call so a change applies at once. */
export function liveLimits(
  settings: Pick<SettingsService, "get">,
  door: LiveDoor,
  operator: OperatorLimits = defaultOperatorLimits,
): () => LiveLimits {
  const read = (key: NumberSetting | null) => (key === null ? 0 : settings.get(key));
  return () => ({
    maxSeconds: read(door.settings.maxSeconds),
    maxSpeed: read(door.settings.maxSpeed),
    idleTimeoutSeconds: read(door.settings.idleTimeoutSeconds),
    startTimeoutSeconds: read(door.settings.startTimeoutSeconds),
    maxSessions: door.maxSessions === null ? 0 : operator[door.maxSessions.limit],
  });
}
