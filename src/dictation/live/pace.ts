import { AppError } from "../../errors.ts";

/** What a live dictation's pace is checked against, and how the refusal is worded. */
export interface PaceRule {
  /** Audio may arrive at most this many times faster than real time. */
  maxSpeed: number;
  /** The setting that holds `maxSpeed`, named in the refusal. */
  setting: string;
  /** What the client should do instead, the refusal's last words. */
  instead: string;
}

/**
 * Throws `too_fast` when `seconds` of audio arrived faster than `maxSpeed` × real time since
 * `startedAt` (performance.now()), after a second's head start for what a client buffered while
 * connecting: a replayed file or a flood would otherwise fill the engine's queue ahead of everyone.
 */
export function assertPace(seconds: number, startedAt: number, rule: PaceRule): void {
  const elapsed = (performance.now() - startedAt) / 1000;
  if (seconds <= rule.maxSpeed * (elapsed + 1)) return;
  throw new AppError(
    "too_fast",
    `${seconds.toFixed(1)} s of audio arrived in ${elapsed.toFixed(1)} s, faster than ${rule.maxSpeed}× real time (${rule.setting}); ${rule.instead}.`,
  );
}
