import { defaultOperatorLimits, type OperatorLimits } from "../dictation/live/limits.ts";
import type { SettingsService } from "../settings/service.ts";
import type { FrameLimits } from "./framing.ts";

/**
 * The Wyoming protocol's own limits (the operator's caps and the wyoming_* settings). A
 * transcription's length, pace and the idle deadline are the live dictation's (dictation/live/limits.ts).
 */
export interface WyomingLimits extends FrameLimits {
  maxConnections: number;
  /** Answers held for a client that is not reading; past it nothing more is handled or read. */
  maxUnreadBytes: number;
  /** How long a client may stay past `maxUnreadBytes` before it is disconnected. */
  unreadTimeoutMs: number;
  /** Bytes per second an event must keep arriving at once begun (0: off). */
  minBytesPerSecond: number;
  /** Bytes per second of events other than audio a client may send (see `createControlBudget`). */
  maxControlBytesPerSecond: number;
  /**
   * How long the rest of a failed command's audio is read, waiting for its audio-stop: as long as a
   * command may last (wyoming_max_utterance_seconds).
   */
  failedAudioGraceMs: number;
}

/**
 * The limits: the caps that protect the server from the operator's environment (SVC_WYOMING_MAX_*),
 * the rest from their settings (wyoming_*), read when each applies.
 */
export function wyomingLimits(
  settings: Pick<SettingsService, "get">,
  operator: OperatorLimits = defaultOperatorLimits,
): () => WyomingLimits {
  return () => ({
    maxConnections: operator.wyomingMaxConnections,
    maxHeaderBytes: operator.wyomingMaxHeaderBytes,
    maxDataBytes: operator.wyomingMaxDataBytes,
    maxPayloadBytes: operator.wyomingMaxPayloadBytes,
    maxUnreadBytes: operator.wyomingMaxUnreadBytes,
    unreadTimeoutMs: settings.get("wyoming_unread_timeout_seconds") * 1000,
    minBytesPerSecond: settings.get("wyoming_min_bytes_per_second"),
    maxControlBytesPerSecond: settings.get("wyoming_max_control_bytes_per_second"),
    failedAudioGraceMs: settings.get("wyoming_max_utterance_seconds") * 1000,
  });
}
